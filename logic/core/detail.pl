% What `metalogic check --out` writes beyond the scores (the Prolog twin of detail.lp): the
% facts behind each violation, and the counts per trajectory, per object and per answer. The
% driver asks these only when they are written. Uses ml_group_counts/3 of score.pl.

explain_fact(_, C, query(Q, K)) :- cq(C, Q), query(Q, K).
explain_fact(Ag, C, answer(Ag, Q, V)) :- cq(C, Q), answer(Ag, Q, V).
explain_fact(Ag, C, query(Q, K)) :- cs(C, Q), answer(Ag, Q, _), query(Q, K).
explain_fact(Ag, C, answer(Ag, Q, V)) :- cs(C, Q), answer(Ag, Q, V).
explain_fact(Ag, C, F) :- explain(Ag, C, F).

% Per trajectory and per object (the error-rate tables): cases that touch a trajectory or object.
% The places of every case are stored once (ml_store_detail/0, called by the driver before these
% are asked), under the case's hash as the driver's tables are.
:- dynamic ctraj_h/3, cobj_h/4, ml_traj/1, ml_traj_object/2.
ml_store_detail :-
    ml_forall_set(C, tc(C, _, _), ml_store_places(C)),
    ml_forall_set(T, ctraj_h(_, _, T), assertz(ml_traj(T))),
    ml_forall_set(T-O, cobj_h(_, _, T, O), assertz(ml_traj_object(T, O))).
ml_store_places(C) :-
    ml_forall_set(T, (cq(C, Q), query_traj(Q, T)), ml_store(ctraj_h, C, [C, T])),
    ml_forall_set(T-O, (cq(C, Q), query_traj(Q, T), query_object(Q, O)), ml_store(cobj_h, C, [C, T, O])).
ml_forget_detail :-
    retractall(ctraj_h(_, _, _)), retractall(cobj_h(_, _, _, _)), retractall(ml_traj(_)),
    retractall(ml_traj_object(_, _)).
case_traj(C, T) :- ml_key(C, H), ctraj_h(H, C, T).
case_object(C, T, O) :- ml_key(C, H), cobj_h(H, C, T, O).
score_traj(Ag, T, N, V) :- agent(Ag),
    ml_group_counts(T1-C1, (app(Ag, C1), case_traj(C1, T1)), Apps),
    ml_group_counts(T2-C2, (viol(Ag, C2), case_traj(C2, T2)), Viols),
    ml_traj(T), ml_count(Apps, T, N), ml_count(Viols, T, V).
score_object(Ag, T, O, N, V) :- agent(Ag),
    ml_group_counts((T1-O1)-C1, (app(Ag, C1), case_object(C1, T1, O1)), Apps),
    ml_group_counts((T2-O2)-C2, (viol(Ag, C2), case_object(C2, T2, O2)), Viols),
    ml_traj_object(T, O), ml_count(Apps, T-O, N), ml_count(Viols, T-O, V).

% Per answer: the cases that need it and how many of them are violated (the MR verifier's reward).
query_score(Ag, Q, N, V) :- agent(Ag),
    ml_group_counts(Q1-C1, (app(Ag, C1), cq(C1, Q1)), Apps),
    ml_group_counts(Q2-C2, (viol(Ag, C2), cq(C2, Q2)), Viols),
    findall(Q0, (answer(Ag, Q0, _), once(cq(_, Q0))), Qs0), sort(Qs0, Qs),
    member(Q, Qs), ml_count(Apps, Q, N), ml_count(Viols, Q, V).
