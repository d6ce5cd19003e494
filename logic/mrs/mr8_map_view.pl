% MR8 map consistency: a map direction must fit the frame. The two boxes, placed at the agent's own
% depth answers and levelled with the camera's pitch, bound where A lies from B on the top-down map
% (right = east, the heading = north); the answered 45-degree sector must meet that region.
:- include('mr8_map_view.decl').

testcase(mr8(Q, DA, DB), mr8, sc4a) :- query(Q, map_dir(T, S, A, B)), A \== B,
    depth_query(DA, T, S, A), depth_query(DB, T, S, B), once(obs_span(T, S, A, _, _, _, _)),
    once(obs_span(T, S, B, _, _, _, _)), once(obs_pitch(T, S, _, _)).
case_query(mr8(Q, DA, DB), X) :- member(X, [Q, DA, DB]).

% violates/3 by the case's shape (indexed; see mr4_triangle.pl).
violates(Ag, mr8(Q, DA, DB), R) :- mr8_violates(Ag, mr8(Q, DA, DB), R).

mr8_region(Ag, mr8(Q, _, _), LL, LH, FL, FH) :- query(Q, map_dir(T, S, A, B)),
    level(Ag, T, S, A, LA1, LA2, FA1, FA2, _, _), level(Ag, T, S, B, LB1, LB2, FB1, FB2, _, _),
    LL is LA1 - LB2, LH is LA2 - LB1, FL is FA1 - FB2, FH is FA2 - FB1.
% Turn the region R quarter turns counter-clockwise: sector K becomes K - 2R.
mr8_turned(0, LL, LH, FL, FH, LL, LH, FL, FH).
mr8_turned(R, LL, LH, FL, FH, L1, L2, F1, F2) :- R > 0, R1 is R - 1,
    mr8_turned(R1, LL, LH, FL, FH, M1, M2, G1, G2), L1 is -G2, L2 is -G1, F1 = M1, F2 = M2.

mr8_ge(X, Y) :- X >= 0, Y =< 0, !.
mr8_ge(X, Y) :- X > 0, Y > 0, !, 1000 * X >= 415 * Y.
mr8_ge(X, Y) :- X < 0, Y < 0, -1000 * X =< -414 * Y.

mr8_misses(0, _, _, _, FH) :- FH =< 0, !.
mr8_misses(0, LL, _, _, FH) :- mr8_ge(LL, FH), !.
mr8_misses(0, _, LH, _, FH) :- X is -LH, mr8_ge(X, FH), !.
mr8_misses(1, _, LH, _, _) :- LH =< 0, !.
mr8_misses(1, _, _, _, FH) :- FH =< 0, !.
mr8_misses(1, _, LH, FL, _) :- X is -LH, Y is -FL, mr8_ge(X, Y), !.
mr8_misses(1, LL, _, _, FH) :- X is -FH, Y is -LL, mr8_ge(X, Y).

mr8_violates(Ag, C, map_against_boxes) :- C = mr8(Q, _, _), dir_answer(Ag, Q, N), sector(map, N, K),
    mr8_region(Ag, C, LL, LH, FL, FH), R is K // 2, E is K mod 2,
    mr8_turned(R, LL, LH, FL, FH, L1, L2, F1, F2), once(mr8_misses(E, L1, L2, F1, F2)).
mr8_violates(Ag, C, map_against_boxes) :- once((C = mr8(Q, _, _), dir_answer(Ag, Q, eq),
    mr8_region(Ag, C, LL, LH, FL, FH), ( LL > 1 ; LH < -1 ; FL > 1 ; FH < -1 ))).

mr8_violates(Ag, C, zero_depth) :- once((C = mr8(_, DA, DB), ( mag_answer(Ag, DA, 0) ; mag_answer(Ag, DB, 0) ))).

explain(_, mr8(Q, _, _), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- query(Q, map_dir(T, S, A, B)),
    member(O, [A, B]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
