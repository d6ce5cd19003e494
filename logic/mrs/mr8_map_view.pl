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
% The cone test is the core's (map_miss/5, algebra.pl).
mr8_violates(Ag, C, map_against_boxes) :- once((C = mr8(Q, _, _), dir_answer(Ag, Q, N),
    mr8_region(Ag, C, LL, LH, FL, FH), map_miss(N, LL, LH, FL, FH))).

mr8_violates(Ag, C, zero_depth) :- once((C = mr8(_, DA, DB), ( mag_answer(Ag, DA, 0) ; mag_answer(Ag, DB, 0) ))).

explain(_, mr8(Q, _, _), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- query(Q, map_dir(T, S, A, B)),
    member(O, [A, B]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
