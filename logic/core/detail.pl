% What `metalogic check --out` writes beyond the scores (the Prolog twin of detail.lp): the
% facts behind each violation, and the counts per trajectory, per object and per answer. The
% driver asks these only when they are written. Uses ml_group_counts/3 of score.pl.

explain_fact(_, C, query(Q, K)) :- cq(C, Q), query(Q, K).
explain_fact(Ag, C, answer(Ag, Q, V)) :- cq(C, Q), answer(Ag, Q, V).
explain_fact(Ag, C, query(Q, K)) :- cs(C, Q), answer(Ag, Q, _), query(Q, K).
explain_fact(Ag, C, answer(Ag, Q, V)) :- cs(C, Q), answer(Ag, Q, V).
explain_fact(Ag, C, F) :- explain(Ag, C, F).

% Per trajectory and per object (the error-rate tables): cases that touch a trajectory or object.
case_traj(C, T) :- cq(C, Q), query_traj(Q, T).
case_object(C, T, O) :- cq(C, Q), query_traj(Q, T), query_object(Q, O).
score_traj(Ag, T, N, V) :- agent(Ag),
    ml_group_counts(T0-C0, (tc(C0, _, _), case_traj(C0, T0)), Trajs),
    ml_group_counts(T1-C1, (app(Ag, C1), case_traj(C1, T1)), Apps),
    ml_group_counts(T2-C2, (viol(Ag, C2), case_traj(C2, T2)), Viols),
    gen_assoc(T, Trajs, _), ml_count(Apps, T, N), ml_count(Viols, T, V).
score_object(Ag, T, O, N, V) :- agent(Ag),
    ml_group_counts((T0-O0)-C0, (tc(C0, _, _), case_object(C0, T0, O0)), Objects),
    ml_group_counts((T1-O1)-C1, (app(Ag, C1), case_object(C1, T1, O1)), Apps),
    ml_group_counts((T2-O2)-C2, (viol(Ag, C2), case_object(C2, T2, O2)), Viols),
    gen_assoc(T-O, Objects, _), ml_count(Apps, T-O, N), ml_count(Viols, T-O, V).

% Per answer: the cases that need it and how many of them are violated (the MR verifier's reward).
query_score(Ag, Q, N, V) :- agent(Ag),
    ml_group_counts(Q1-C1, (app(Ag, C1), cq(C1, Q1)), Apps),
    ml_group_counts(Q2-C2, (viol(Ag, C2), cq(C2, Q2)), Viols),
    findall(Q0, (answer(Ag, Q0, _), once(cq(_, Q0))), Qs0), sort(Qs0, Qs),
    member(Q, Qs), ml_count(Apps, Q, N), ml_count(Viols, Q, V).
