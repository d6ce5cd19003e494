% MR7 view consistency: an object relation must fit what its frame shows. Left/right must agree
% with the two boxes (a box wholly left of another is left of it); nearer/farther with the agent's
% own depth answers; above/below with the boxes placed at those depths.
:- include('mr7_view.decl').

testcase(mr7(Q), mr7, sc2a) :- query(Q, obj_dir(T, S, A, B)), A \== B,
    once(obs_span(T, S, A, _, _, _, _)), once(obs_span(T, S, B, _, _, _, _)).
case_query(mr7(Q), Q) :- stored_case(mr7(Q), mr7, _).
case_support(mr7(Q), D) :- query(Q, obj_dir(T, S, A, B)), member(O, [A, B]), depth_query(D, T, S, O).

% violates/3 by the case's shape (indexed; see mr4_triangle.pl).
:- discontiguous mr7_violates/3.
violates(Ag, mr7(Q), R) :- mr7_violates(Ag, mr7(Q), R).

mr7_gap(mr7(Q), GL, GH, Fx) :- query(Q, obj_dir(T, S, A, B)), obs_span(T, S, A, UA1, UA2, _, _),
    obs_span(T, S, B, UB1, UB2, _, _), camera(T, Fx, _, _, _), GL is UA1 - UB2, GH is UA2 - UB1.
mr7_lat(Ag, mr7(Q), SL) :- dir_answer(Ag, Q, N), dir_name(ego, N, SL, _, _).
mr7_violates(Ag, C, lateral_against_boxes) :- C = mr7(_), mr7_lat(Ag, C, SL), mr7_gap(C, GL, GH, Fx),
    param(truth_bearing_band, Wb), mr7_lateral_off(SL, GL, GH, Fx, Wb).
mr7_lateral_off(1, _, GH, Fx, Wb) :- 1000 * GH < Wb * Fx.
mr7_lateral_off(-1, GL, _, Fx, Wb) :- 1000 * GL > -Wb * Fx.
mr7_lateral_off(0, GL, GH, Fx, Wb) :- ( 1000 * GL > (Wb + 1) * Fx ; 1000 * GH < -(Wb + 1) * Fx ), !.

mr7_depth(Ag, mr7(Q), SD, X) :- query(Q, obj_dir(T, S, A, B)), dir_answer(Ag, Q, N), dir_name(ego, N, _, SD, _),
    depth_of(Ag, T, S, A, DA), depth_of(Ag, T, S, B, DB), X is DA - DB.
mr7_violates(Ag, C, depth_against_depths) :- C = mr7(_), mr7_depth(Ag, C, SD, X), param(truth_band_mm, W),
    param(depth_round_mm, R), mr7_depth_off(SD, X, W, R).
mr7_depth_off(1, X, W, R) :- X =< W - 2 * R.
mr7_depth_off(-1, X, W, R) :- X >= 2 * R - W.
mr7_depth_off(0, X, W, R) :- abs(X) > W + 2 * R.

mr7_height(Ag, mr7(Q), SU, L, H) :- query(Q, obj_dir(T, S, A, B)), dir_answer(Ag, Q, N), dir_name(ego, N, _, _, SU),
    level(Ag, T, S, A, _, _, _, _, ZLA, ZHA), level(Ag, T, S, B, _, _, _, _, ZLB, ZHB),
    L is ZLA - ZHB, H is ZHA - ZLB.
mr7_violates(Ag, C, vertical_against_boxes) :- C = mr7(_), mr7_height(Ag, C, SU, L, H), param(truth_band_mm, W),
    mr7_vertical_off(SU, L, H, W).
mr7_vertical_off(1, _, H, W) :- H < W // 10.
mr7_vertical_off(-1, L, _, W) :- L > -(W // 10).
mr7_vertical_off(0, L, H, W) :- ( L > W // 10 + 1 ; H < -(W // 10 + 1) ), !.

% The answers that cannot all be right: a lateral break names the answer alone, a depth or height
% break the answer and the depths (see mr7_view.lp).
:- multifile conflict/4.
:- dynamic conflict/4.
conflict(Ag, mr7(Q), lateral, Q) :- violated(Ag, mr7(Q)), mr7_violates(Ag, mr7(Q), lateral_against_boxes).
conflict(Ag, mr7(Q), depths, X) :- violated(Ag, mr7(Q)),
    once(( member(R, [depth_against_depths, vertical_against_boxes]), mr7_violates(Ag, mr7(Q), R) )),
    ml_case_id(mr7(Q), I), case_read_i(I, X), answer(Ag, X, _).

explain(_, mr7(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- query(Q, obj_dir(T, S, A, B)),
    member(O, [A, B]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
