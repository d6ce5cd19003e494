% Parameters (the Prolog twin of params.lp): param_default/3 in rule files, param_override/2 from
% the run.

:- include('param_rule.pl').

:- include('params.decl').

tolerance(same, steps, T) :- param(same_tol_steps, T).
tolerance(same, mm, T) :- param(same_tol_mm, T).
tolerance(triangle, steps, T) :- param(tri_tol_steps, T).
tolerance(triangle, mm, T) :- param(tri_tol_mm, T).
