% The parameter rule (the Prolog twin of param_rule.lp): an override given by the run, else the
% declared default. params.pl includes it.

param(P, V) :- param_override(P, V0), !, V = V0.
param(P, V) :- param_default(P, V, _).
