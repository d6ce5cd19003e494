% MR10 pinhole bound: an object of height H at depth D cannot look smaller than its upright centre
% line does through a pinhole camera, fy * H * F / D^2 pixels (F its level distance ahead), so the
% answered size and depth must leave the box at least that tall.
:- include('mr10_pinhole.decl').

% One case per answer under test (see mr10_pinhole.lp): each size question in SC3-a and each depth
% question in SC3-b, read against the pairs they form; a broken pair breaks both cases.
% Joined from whichever end is given (each of the two tables is indexed by its id).
mr10_pair(Q, D) :- ( var(Q), nonvar(D) -> depth_query(D, T, S, O), any_object_query(Q, size, T, _, O)
                   ; any_object_query(Q, size, T, _, O), depth_query(D, T, S, O) ),
    once(obs_span(T, S, O, _, _, _, _)), once(obs_pitch(T, S, _, _)).
testcase(mr10(Q), mr10, sc3a) :- mr10_pair(Q, _).
testcase(mr10d(D), mr10, sc3b) :- mr10_pair(_, D).
mr10_pair_of(mr10(Q), Q, D) :- mr10_pair(Q, D).
mr10_pair_of(mr10d(D), Q, D) :- mr10_pair(Q, D).
case_query(mr10(Q), Q) :- once(mr10_pair(Q, _)).
case_query(mr10d(D), D) :- once(mr10_pair(_, D)).
case_support(mr10(Q), D) :- mr10_pair(Q, D).
case_support(mr10d(D), Q) :- mr10_pair(Q, D).
vacuous(Ag, mr10(Q)) :- mr10_unanswered(Ag, mr10(Q)).
vacuous(Ag, mr10d(D)) :- mr10_unanswered(Ag, mr10d(D)).
mr10_unanswered(Ag, C) :- \+ (mr10_pair_of(C, Q, D), answer(Ag, Q, _), answer(Ag, D, _)).

mr10_broken(Ag, Q, D) :- any_object_query(Q, size, T, _, O), mag_answer(Ag, Q, HS), HS =< 100000, depth_query(D, T, S, O),
    mag_answer(Ag, D, _), level(Ag, T, S, O, _, _, FL, _, _, _), FL > 0, place(Ag, T, S, O, _, _, _, _, Dc),
    Dc =< 40000, obs_whole(T, S, O, _, Y1, _, Y2), camera(T, _, Fy, _, _), obs_slack(T, K),
    param(pinhole_slack_permille, P),
    frac_lt((Y2 - Y1 + 1 + 2 * K) * (1000 + P), Fy * 1000, (HS + 5) // 10 * FL, Dc * Dc), !.
violates(Ag, mr10(Q), taller_than_box) :- mr10_taller(Ag, mr10(Q)).
violates(Ag, mr10d(D), taller_than_box) :- mr10_taller(Ag, mr10d(D)).
mr10_taller(Ag, C) :- once((mr10_pair_of(C, Q, D), mr10_broken(Ag, Q, D))).
violates(Ag, mr10d(D), zero_depth) :- mag_answer(Ag, D, 0).

explain(Ag, C, detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr10_pair_of(C, Q, D), mr10_broken(Ag, Q, D),
    depth_query(D, T, S, O), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
