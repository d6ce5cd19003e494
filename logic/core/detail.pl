% What `metalogic check --out` writes beyond the scores (the Prolog twin of detail.lp): the
% facts behind each violation, and the counts per trajectory, per object and per answer. The
% driver asks these only when they are written. Uses ml_group_counts/3 and ml_key_counts/3 of
% score.pl; cases are the driver's numbered cases (I), with their terms (C) where rules need them.

explain_fact(_, I, _, query(Q, K)) :- cq_i(I, Q), query(Q, K).
explain_fact(Ag, I, _, answer(Ag, Q, V)) :- cq_i(I, Q), answer(Ag, Q, V).
explain_fact(Ag, I, _, query(Q, K)) :- cs_i(I, Q), answer(Ag, Q, _), query(Q, K).
explain_fact(Ag, I, _, answer(Ag, Q, V)) :- cs_i(I, Q), answer(Ag, Q, V).
explain_fact(Ag, _, C, F) :- explain(Ag, C, F).

% Per trajectory and per object (the error-rate tables): cases that touch a trajectory or object.
% The places of every case are stored once (ml_store_detail/0, called by the driver before these
% are asked).
:- dynamic ctraj_i/2, cobj_i/3, ml_traj/1, ml_traj_object/2.
ml_store_detail :-
    forall(ml_case(I, _), ml_store_places(I)),
    ml_forall_set(T, ctraj_i(_, T), assertz(ml_traj(T))),
    ml_forall_set(T-O, cobj_i(_, T, O), assertz(ml_traj_object(T, O))).
ml_store_places(I) :-
    ml_forall_set(T, (cq_i(I, Q), query_traj(Q, T)), assertz(ctraj_i(I, T))),
    ml_forall_set(T-O, (cq_i(I, Q), query_traj(Q, T), query_object(Q, O)), assertz(cobj_i(I, T, O))).
ml_forget_detail :-
    ml_clear([ctraj_i/2, cobj_i/3, ml_traj/1, ml_traj_object/2]).
score_traj(Ag, T, N, V) :- agent(Ag),
    ml_key_counts(T1, (app_i(Ag, I1), ctraj_i(I1, T1)), Apps),
    ml_key_counts(T2, (viol_i(Ag, I2), ctraj_i(I2, T2)), Viols),
    ml_traj(T), ml_count(Apps, T, N), ml_count(Viols, T, V).
score_object(Ag, T, O, N, V) :- agent(Ag),
    ml_key_counts(T1-O1, (app_i(Ag, I1), cobj_i(I1, T1, O1)), Apps),
    ml_key_counts(T2-O2, (viol_i(Ag, I2), cobj_i(I2, T2, O2)), Viols),
    ml_traj_object(T, O), ml_count(Apps, T-O, N), ml_count(Viols, T-O, V).

% Per answer: the cases that need it and how many of them are violated (the MR verifier's reward).
query_score(Ag, Q, N, V) :- agent(Ag),
    ml_key_counts(Q1, (app_i(Ag, I1), cq_i(I1, Q1)), Apps),
    ml_key_counts(Q2, (viol_i(Ag, I2), cq_i(I2, Q2)), Viols),
    findall(Q0, (answer(Ag, Q0, _), once(cq_i(_, Q0))), Qs0), sort(Qs0, Qs),
    member(Q, Qs), ml_count(Apps, Q, N), ml_count(Viols, Q, V).
