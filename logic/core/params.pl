% Parameters (the Prolog twin of params.lp): param_default/3 in rule files, param_override/2 from
% the run.

param(P, V) :- param_override(P, V0), !, V = V0.
param(P, V) :- param_default(P, V, _).

% What the answer vocabularies mean, shared by the truth semantics (logic/truth/) and the MRs that
% compare answers with what the frames show: the bands inside which an answer says "level".
param_default(truth_move_tol_mm, 20, "a move component under this many mm counts as no movement (rounding)").
param_default(truth_band_mm, 100, "objects within this many mm in depth or height are level on that axis (obj_dir)").
param_default(truth_bearing_band, 20, "objects whose bearings differ by at most this many thousandths of the tangent are in line (obj_dir)").

param_default(scale_tol_permille, 80, "how much, in thousandths, box height times depth may change for a still object between neighbouring frames (MR11, MR16: a nearer view shows more of the top)").
param_default(pinhole_slack_permille, 50, "relative slack, in thousandths, of the pinhole bound for objects whose silhouette is not exactly their centre line (MR10, and MR11's depth floor)").

param_default(same_tol_steps, 0, "steps two answers about the same distance may differ by").
param_default(same_tol_mm, 10, "millimetres two answers about the same distance may differ by (unit rounding)").
param_default(tri_tol_steps, 1, "steps of rounding slack in the triangle inequality").
param_default(tri_tol_mm, 15, "millimetres of rounding slack in the triangle inequality (answers to the nearest cm)").

tolerance(same, steps, T) :- param(same_tol_steps, T).
tolerance(same, mm, T) :- param(same_tol_mm, T).
tolerance(triangle, steps, T) :- param(tri_tol_steps, T).
tolerance(triangle, mm, T) :- param(tri_tol_mm, T).
