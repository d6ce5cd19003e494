% MR5 size-depth consistency: under a pinhole camera an object's pixel height is inversely
% proportional to its depth, so |S1/S2 - D2/D1| < eps for one object seen in two frames.
:- include('mr5_size_depth.decl').

% Pixel height of a box that shows the whole object (not truncated, not occluded); rows are
% inclusive, so the height is Y2 - Y1 + 1.
px_height(T, S, O, H) :- detection(T, S, O, _, _, _, Y1, _, Y2), \+ truncated(T, S, O), \+ occluded(T, S, O),
    Y2 >= Y1, H is Y2 - Y1 + 1.

% A height is off by up to K = 1 + KT + KB pixels (the top and bottom slacks), so S1/S2 can be off by up to
% K * (S1 + S2) / (S2 * (S2 - K)): only pairs where that stays below eps are test cases.
mr5_resolved(T, S1, S2, O) :- once((px_height(T, S1, O, H1), px_height(T, S2, O, H2), obj_slack(T, O, _, KT, _, KB),
    K is 1 + KT + KB, H2 > K, param(eps, E), frac_lt(K * (H1 + H2), H2, E * (H2 - K), 1000))).
% Both views level: the box's centre row at most mr5_level (a tangent, in thousandths) off the horizon.
mr5_level(T, S, O) :- once((detection(T, S, O, _, _, _, Y1, _, Y2), camera(T, _, Fy, _, Cy), obs_pitch(T, S, C, Sn),
    V is 2 * Cy - Y1 - Y2 - 1, N is V * C + 2 * Fy * Sn, D is 2 * Fy * C - V * Sn, D > 0, param(mr5_level, L),
    1000 * abs(N) =< L * D)).
testcase(mr5(Q1, Q2), mr5, sc3b) :- object_query(Q1, depth, T, S1, O), object_query(Q2, depth, T, S2, O),
    S1 @< S2, mr5_resolved(T, S1, S2, O), mr5_level(T, S1, O), mr5_level(T, S2, O).
case_query(mr5(Q1, Q2), Q) :- stored_case(mr5(Q1, Q2), mr5, _), member(Q, [Q1, Q2]).

% violates/3 by the case's shape (indexed; see mr4_triangle.pl). The heights and answers of a case are
% looked up once, and every reason judged on them.
violates(Ag, mr5(Q1, Q2), R) :- mr5_case(Ag, mr5(Q1, Q2), H1, H2, D1, D2, E), mr5_violates(H1, H2, D1, D2, E, R).

mr5_case(Ag, mr5(Q1, Q2), H1, H2, D1, D2, E) :- stored_case(mr5(Q1, Q2), mr5, _),
    object_query(Q1, _, T, S1, O), object_query(Q2, _, T, S2, O),
    px_height(T, S1, O, H1), px_height(T, S2, O, H2),
    mag_answer(Ag, Q1, D1), mag_answer(Ag, Q2, D2), param(eps, E).
mr5_violates(_, _, 0, _, _, zero_depth).
mr5_violates(_, _, _, 0, _, zero_depth).
mr5_violates(H1, H2, D1, D2, E, size_depth_mismatch) :- D1 > 0, D2 > 0,
    \+ frac_lt(H1, H2, 1000 * D2 + E * D1, 1000 * D1).
mr5_violates(H1, H2, D1, D2, E, size_depth_mismatch) :- D1 > 0, D2 > 0,
    1000 * D2 >= E * D1, \+ frac_lt(1000 * D2 - E * D1, 1000 * D1, H1, H2).
explain(Ag, mr5(Q1, Q2), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr5(Q1, Q2)),
    member(Q, [Q1, Q2]), object_query(Q, _, T, S, O), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
