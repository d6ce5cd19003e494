% MR10 pinhole bound: an object of height H at depth D cannot look smaller than its upright centre
% line does through a pinhole camera, fy * H * F / D^2 pixels (F its level distance ahead), so the
% answered size and depth must leave the box at least that tall.
:- include('mr10_pinhole.decl').

% One case per answer under test (see mr10_pinhole.lp): each size question in SC3-a and each depth
% question in SC3-b, read against the pairs they form; a broken pair breaks both cases.
% The pairs are stored once per run with the broken pairs (mr10_store/0, below): every case, its
% queries, its applicability and its verdicts join them again, from either end (the stored table is
% indexed on either argument).
mr10_find_pair(Q, D) :- any_object_query(Q, size, T, _, O), depth_query(D, T, S, O),
    once(obs_span(T, S, O, _, _, _, _)), once(obs_pitch(T, S, _, _)).
mr10_pair(Q, D) :- mr10_pair_row(Q, D).
testcase(mr10(Q), mr10, sc3a) :- mr10_pair(Q, _).
testcase(mr10d(D), mr10, sc3b) :- mr10_pair(_, D).
mr10_case_pair(mr10(Q), Q, D) :- mr10_pair(Q, D).
mr10_case_pair(mr10d(D), Q, D) :- mr10_pair(Q, D).
case_query(mr10(Q), Q) :- once(mr10_pair(Q, _)).
case_query(mr10d(D), D) :- once(mr10_pair(_, D)).
case_support(mr10(Q), D) :- mr10_pair(Q, D).
case_support(mr10d(D), Q) :- mr10_pair(Q, D).
vacuous(Ag, mr10(Q)) :- mr10_unanswered(Ag, mr10(Q)).
vacuous(Ag, mr10d(D)) :- mr10_unanswered(Ag, mr10d(D)).
mr10_unanswered(Ag, C) :- \+ (mr10_case_pair(C, Q, D), answer(Ag, Q, _), answer(Ag, D, _)).

mr10_broken(Ag, Q, D) :- any_object_query(Q, size, T, _, O), mag_answer(Ag, Q, HS), HS =< 100000, depth_query(D, T, S, O),
    mag_answer(Ag, D, _), level(Ag, T, S, O, _, _, FL, _, _, _), FL > 0, place(Ag, T, S, O, _, _, _, _, Dc),
    Dc =< 40000, obs_whole(T, S, O, _, Y1, _, Y2), camera(T, _, Fy, _, _), obj_slack(T, O, _, KT, _, KB),
    param(pinhole_slack_permille, P),
    frac_lt((Y2 - Y1 + 1 + KT + KB) * (1000 + P), Fy * 1000, (HS + 5) // 10 * FL, Dc * Dc), !.

% The pairs, and the broken pairs of every agent, are stored once per run, before the cases (the
% driver's ml_mr_store/2), as mr10_pair_row(Q, D) and mr10_broken_row(Ag, Q, D): a pair is read by
% both of its cases, and again by the explanation of each, so each pair is judged once per agent.
:- dynamic mr10_pair_row/2, mr10_broken_row/3.
ml_mr_store(mr10_store, [mr10_pair_row/2, mr10_broken_row/3]).
mr10_store :-
    ml_forall_set(Q-D, mr10_find_pair(Q, D), assertz(mr10_pair_row(Q, D))),
    forall(( mr10_pair_row(Q, D), agent(Ag), mr10_broken(Ag, Q, D) ), assertz(mr10_broken_row(Ag, Q, D))).
mr10_broken_of(Ag, mr10(Q), Q, D) :- mr10_broken_row(Ag, Q, D).
mr10_broken_of(Ag, mr10d(D), Q, D) :- mr10_broken_row(Ag, Q, D).
violates(Ag, mr10(Q), taller_than_box) :- once(mr10_broken_row(Ag, Q, _)).
violates(Ag, mr10d(D), taller_than_box) :- once(mr10_broken_row(Ag, _, D)).
violates(Ag, mr10d(D), zero_depth) :- mag_answer(Ag, D, 0).

explain(Ag, C, detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr10_broken_of(Ag, C, _, D),
    depth_query(D, T, S, O), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
