% Parameters (the Prolog twin of params.lp): param_default/3 in rule files, param_override/2 from
% the run.

param(P, V) :- param_override(P, V0), !, V = V0.
param(P, V) :- param_default(P, V, _).

:- include('params.decl').

tolerance(same, steps, T) :- param(same_tol_steps, T).
tolerance(same, mm, T) :- param(same_tol_mm, T).
tolerance(triangle, steps, T) :- param(tri_tol_steps, T).
tolerance(triangle, mm, T) :- param(tri_tol_mm, T).
