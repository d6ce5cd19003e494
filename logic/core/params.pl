% Parameters (the Prolog twin of params.lp): param_default/3 in rule files, param_override/2 from
% the run.

param(P, V) :- param_override(P, V0), !, V = V0.
param(P, V) :- param_default(P, V, _).

param_default(same_tol_steps, 0, "steps two answers about the same distance may differ by").
param_default(same_tol_mm, 10, "millimetres two answers about the same distance may differ by (unit rounding)").
param_default(tri_tol_steps, 1, "steps of rounding slack in the triangle inequality").
param_default(tri_tol_mm, 15, "millimetres of rounding slack in the triangle inequality (answers to the nearest cm)").

tolerance(same, steps, T) :- param(same_tol_steps, T).
tolerance(same, mm, T) :- param(same_tol_mm, T).
tolerance(triangle, steps, T) :- param(tri_tol_steps, T).
tolerance(triangle, mm, T) :- param(tri_tol_mm, T).
