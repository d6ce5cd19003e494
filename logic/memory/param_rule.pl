% The parameter rule of the memory programs, stated once (the twin of logic/core/param_rule.lp for
% programs that take their facts as a list): an override in Facts, else the declared default.
% Each memory module includes this file, so each has its own param/3.

param(Facts, P, V) :- param_default(P, D, _), ( memberchk(param_override(P, O), Facts) -> V = O ; V = D ).
