% MR16 depth against box scale: a still object's box height is inversely proportional to its depth
% (pinhole), so between two neighbouring views box height times answered depth stays the same.
:- include('mr16_depth_rescale.decl').

mr16_at(T, S, O, Q, H) :- depth_query(Q, T, S, O), obs_whole(T, S, O, _, Y1, _, Y2), H is Y2 - Y1 + 1,
    obj_slack(T, O, _, KT, _, KB), H >= 10 * (KT + KB + 1), \+ mr16_steep(T, S, Y1, Y2).
% Steep views make no case: where the camera and its pitch are known, the box's centre row must lie
% at most scale_level (a tangent, in thousandths) off the horizon (see mr16_depth_rescale.lp).
mr16_steep(T, S, Y1, Y2) :- once((camera(T, _, Fy, _, Cy), obs_pitch(T, S, C, Sn))),
    V is 2 * Cy - Y1 - Y2 - 1, N is V * C + 2 * Fy * Sn, D is 2 * Fy * C - V * Sn,
    param(scale_level, L), L >= 0, ( D =< 0 -> true ; 1000 * abs(N) > L * D ).
mr16_next(T, O, S1, S2) :- mr16_at(T, S1, O, _, _), aggregate_all(min(S), (mr16_at(T, S, O, _, _), S > S1), S2).
mr16_link_of(T, O, Q1, Q2, H1, H2) :- mr16_next(T, O, S1, S2), mr16_at(T, S1, O, Q1, H1), mr16_at(T, S2, O, Q2, H2),
    2 * H1 =< 3 * H2, 2 * H2 =< 3 * H1.
% The links are stored once per run, before the cases (the driver's ml_mr_store/2): finding the next
% frame scans the object's frames once per frame, and the case, its queries and every agent's verdict
% read the links again.
:- dynamic mr16_link_row/6.
ml_mr_store(mr16_store, [mr16_link_row/6]).
mr16_store :- ml_forall_set(l(T, O, Q1, Q2, H1, H2), mr16_link_of(T, O, Q1, Q2, H1, H2),
                            assertz(mr16_link_row(T, O, Q1, Q2, H1, H2))).
mr16_link(T, O, Q1, Q2, H1, H2) :- mr16_link_row(T, O, Q1, Q2, H1, H2).
testcase(mr16(T, O), mr16, sc3b) :- mr16_link(T, O, _, _, _, _).
case_query(mr16(T, O), Q) :- mr16_link(T, O, Q1, Q2, _, _), member(Q, [Q1, Q2]).

mr16_case(Ag, T, O, A, B, W) :- mr16_link(T, O, Q1, Q2, H1, H2),
    mag_answer(Ag, Q1, D1), mag_answer(Ag, Q2, D2), D1 > 0, D2 > 0, D1 =< 200000, D2 =< 200000, H1 =< 5000, H2 =< 5000,
    obj_slack(T, O, _, KT, _, KB), param(scale_tol_permille, M),
    A is H1 * D1, B is H2 * D2, W is max(H1, H2) * max(D1, D2) // 1000 * M + (KT + KB + 1) * (D1 + D2).
violates(Ag, mr16(T, O), depth_against_box_scale) :- mr16_case(Ag, T, O, A, B, W), abs(A - B) > W.
violates(Ag, mr16(T, O), zero_depth) :- mr16_link(T, O, Q1, Q2, _, _), member(Q, [Q1, Q2]), mag_answer(Ag, Q, 0).

explain(_, mr16(T, O), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr16_at(T, S, O, _, _),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
