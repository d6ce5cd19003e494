% MR15 still scene: the scene does not move while the agent does, so an object's height and the
% distance between two objects are the same from every frame: all answers about one agree.
:- include('mr15_still_scene.decl').

mr15_at(K, T, S, pair(A, B), Q) :- member(K, [obj_dist, map_dist]), pair_query(Q, K, T, S, A, B).
mr15_at(size, T, S, O, Q) :- object_query(Q, size, T, S, O).
mr15_sc(obj_dist, sc2b).
mr15_sc(size, sc3a).
mr15_sc(map_dist, sc4b).
mr15_case(K, T, X) :- mr15_at(K, T, S1, X, _), mr15_at(K, T, S2, X, _), S1 < S2.
testcase(mr15(K, T, X), mr15, SC) :- mr15_case(K, T, X), mr15_sc(K, SC).
case_query(mr15(K, T, X), Q) :- mr15_case(K, T, X), mr15_at(K, T, _, X, Q).

violates(Ag, mr15(K, T, X), changes_between_frames) :- once(mr15_case(K, T, X)), agent(Ag),
    aggregate_all(max(V), (mr15_at(K, T, _, X, Q), mag_answer(Ag, Q, V)), Hi),
    aggregate_all(min(V), (mr15_at(K, T, _, X, Q), mag_answer(Ag, Q, V)), Lo), Hi =< 1000000,
    param(still_tol_mm, Tmm), param(still_tol_permille, Tp), Hi - Lo > Tmm + Tp * Hi // 1000.
