% MR9 distance consistency: a distance must fit the frame. Placed at the agent's own depth answers,
% the boxes bound the distance between two objects (in 3-D for obj_dist, on the level map for
% map_dist) and from the camera to an object on the map (ego_dist); the answer must lie in between.
:- include('mr9_distance_view.decl').

mr9_pair(Q, obj_dist, T, S, A, B) :- query(Q, obj_dist(T, S, A, B)).
mr9_pair(Q, map_dist, T, S, A, B) :- query(Q, map_dist(T, S, A, B)), once(obs_pitch(T, S, _, _)).
testcase(mr9(Q, DA, DB), mr9, SC) :- mr9_pair(Q, _, T, S, A, B), A \== B, depth_query(DA, T, S, A),
    depth_query(DB, T, S, B), once(obs_span(T, S, A, _, _, _, _)), once(obs_span(T, S, B, _, _, _, _)),
    query_sc(Q, SC).
testcase(mr9(Q, D), mr9, sc4b) :- query(Q, ego_dist(T, S, O)), depth_query(D, T, S, O),
    once(obs_span(T, S, O, _, _, _, _)), once(obs_pitch(T, S, _, _)).
testcase(mr9d(Q, D), mr9, sc3b) :- testcase(mr9(Q, D), mr9, sc4b).
mr9_of(mr9(Q, DA, DB), Q, D) :- member(D, [DA, DB]).
mr9_of(mr9(Q, D), Q, D).
mr9_of(mr9d(Q, D), Q, D).
case_query(C, X) :- mr9_of(C, Q, D), member(X, [Q, D]).

% violates/3 by the case's shape (indexed; see mr4_triangle.pl).
:- discontiguous mr9_violates/3.
violates(Ag, mr9(Q, DA, DB), R) :- mr9_violates(Ag, mr9(Q, DA, DB), R).
violates(Ag, mr9(Q, D), R) :- mr9_violates(Ag, mr9(Q, D), R).
violates(Ag, mr9d(Q, D), R) :- mr9_violates(Ag, mr9d(Q, D), R).

mr9_round(E) :- param(depth_round_mm, R), E is 1 + (R + 9) // 10.
% The parts of a distance, one per axis, I-(L-H): each question's placements are looked up once and
% give all of its axes (x, y and depth for obj_dist, levelled across and forward for map_dist and
% ego_dist).
mr9_part(Ag, Q, P) :- query(Q, C), mr9_axes(C, Q, Ag, P).
mr9_axes(obj_dist(T, S, A, B), Q, Ag, P) :- mr9_pair(Q, obj_dist, T, S, A, B),
    place(Ag, T, S, A, XA1, XA2, YA1, YA2, DA), place(Ag, T, S, B, XB1, XB2, YB1, YB2, DB),
    (   L is XA1 - XB2, H is XA2 - XB1, P = x-(L-H)
    ;   L is YA1 - YB2, H is YA2 - YB1, P = y-(L-H)
    ;   mr9_round(E), L is DA - DB - 2 * E, H is DA - DB + 2 * E, P = d-(L-H)
    ).
mr9_axes(map_dist(T, S, A, B), Q, Ag, P) :- mr9_pair(Q, map_dist, T, S, A, B),
    level(Ag, T, S, A, LA1, LA2, FA1, FA2, _, _), level(Ag, T, S, B, LB1, LB2, FB1, FB2, _, _),
    (   L is LA1 - LB2, H is LA2 - LB1, P = l-(L-H)
    ;   L is FA1 - FB2, H is FA2 - FB1, P = f-(L-H)
    ).
mr9_axes(ego_dist(T, S, O), _, Ag, P) :- level(Ag, T, S, O, L1, L2, F1, F2, _, _), ( P = l-(L1-L2) ; P = f-(F1-F2) ).

% The parts of a case, one per axis (the same axis twice would be the same placement twice).
mr9_parts(Ag, Q, Parts) :- findall(P, mr9_part(Ag, Q, P), Ps0), sort(Ps0, Parts), Parts \== [].
mr9_add(_-(L-H), Lo0-Hi0-M0, Lo-Hi-M) :- ivl_min_abs(L, H, A), ivl_max_abs(L, H, B),
    Lo is Lo0 + A * A, Hi is Hi0 + B * B, M is max(M0, B).
mr9_far(Parts, Lo, Hi) :- foldl(mr9_add_far, Parts, 0-0, Lo-Hi).
mr9_add_far(_-(L-H), Lo0-Hi0, Lo-Hi) :- ivl_min_abs(L, H, A), ivl_max_abs(L, H, B),
    Lo is max(Lo0, A), Hi is Hi0 + B.

% The parts are worked out once per answer and read by every reason.
mr9_violates(Ag, C, R) :- once(mr9_of(C, Q, _)), mag_answer(Ag, Q, D), X is D // 10, mr9_parts(Ag, Q, Parts),
    foldl(mr9_add, Parts, 0-0-0, Lo-Hi-M), mr9_verdict(Parts, X, Lo, Hi, M, R).
mr9_verdict(_, X, Lo, _, M, shorter_than_boxes) :- M =< 20000, X < 34650, (X + 3) * (X + 3) < Lo.
mr9_verdict(_, X, _, Hi, M, longer_than_boxes) :- M =< 20000, X > 3, X < 34650, (X - 3) * (X - 3) > Hi.
mr9_verdict(_, X, _, _, M, longer_than_boxes) :- M =< 20000, X >= 34650.
mr9_verdict(Parts, X, _, _, M, shorter_than_boxes) :- M > 20000, mr9_far(Parts, Lo, _), X + 3 < Lo.
mr9_verdict(Parts, X, _, _, M, longer_than_boxes) :- M > 20000, mr9_far(Parts, _, Hi), X - 3 > Hi.
mr9_violates(Ag, C, zero_depth) :- once((mr9_of(C, _, D), mag_answer(Ag, D, 0))).

explain(_, C, detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr9_of(C, _, D), depth_query(D, T, S, O),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
