% MR13 distance kinds: the distance between two objects in space is never shorter than their
% distance on the level map (the map drops the height difference), so obj_dist >= map_dist.
:- include('mr13_distance_kinds.decl').

testcase(mr13(Qo, Qm), mr13, sc4b) :- pair_query(Qo, obj_dist, T, S, A, B), pair_query(Qm, map_dist, T, S, A, B).
mr13_of(mr13(Qo, Qm), Qo, Qm).
case_query(C, X) :- mr13_of(C, Qo, Qm), member(X, [Qo, Qm]).
violates(Ag, mr13(Qo, Qm), map_longer_than_space) :- mag_answer(Ag, Qo, DO), mag_answer(Ag, Qm, DM),
    tolerance(same, mm, Tol), DM - DO > Tol.
