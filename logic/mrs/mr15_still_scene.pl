% MR15 still scene: the scene does not move while the agent does, so an object's height and the
% distance between two objects are the same from every frame: all answers about one agree.
:- include('mr15_still_scene.decl').

mr15_at(K, T, S, pair(A, B), Q) :- member(K, [obj_dist, map_dist]), pair_query(Q, K, T, S, A, B).
mr15_at(size, T, S, O, Q) :- object_query(Q, size, T, S, O).
mr15_sc(obj_dist, sc2b).
mr15_sc(size, sc3a).
mr15_sc(map_dist, sc4b).
% A case: the same height or distance asked in two frames (S1 < S2), with all its questions.
% The cases are stored once per run, before the cases are derived (the driver's ml_mr_store/2), as
% mr15_case_row(H, C, Qs): the questions Qs of case C, under C's term_hash/2 H. Gathering them is
% one pass over the questions; a search by kind, trajectory and object (the frame unknown) would
% scan all questions of the trajectory for each case, and again for every agent's verdict.
:- dynamic mr15_case_row/3.
ml_mr_store(mr15_store, [mr15_case_row/3]).
mr15_store :-
    findall(mr15(K, T, X)-(S-Q), mr15_at(K, T, S, X, Q), Rows0), sort(Rows0, Rows),
    group_pairs_by_key(Rows, Groups),
    forall(member(C-SQs, Groups), mr15_store_case(C, SQs)).
mr15_store_case(C, SQs) :-
    pairs_keys_values(SQs, Ss, Qs0), sort(Qs0, Qs),
    (   member(S1, Ss), member(S2, Ss), S1 < S2
    ->  term_hash(C, H), assertz(mr15_case_row(H, C, Qs))
    ;   true
    ).
mr15_case_queries(C, Qs) :- term_hash(C, H), mr15_case_row(H, C, Qs).
testcase(mr15(K, T, X), mr15, SC) :- mr15_case_row(_, mr15(K, T, X), _), mr15_sc(K, SC).
case_query(mr15(K, T, X), Q) :- mr15_case_queries(mr15(K, T, X), Qs), member(Q, Qs).

violates(Ag, mr15(K, T, X), changes_between_frames) :- mr15_case_queries(mr15(K, T, X), Qs), agent(Ag),
    aggregate_all(max(V), (member(Q, Qs), mag_answer(Ag, Q, V)), Hi),
    aggregate_all(min(V), (member(Q, Qs), mag_answer(Ag, Q, V)), Lo), Hi =< 1000000,
    param(still_tol_mm, Tmm), param(still_tol_permille, Tp), Hi - Lo > Tmm + Tp * Hi // 1000.
