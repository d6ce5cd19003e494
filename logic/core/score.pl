% Scores (the Prolog twin of score.lp), read from the stored app/2, viol/2 and inv/2 tables.

score(Ag, SC, N, V) :- agent(Ag), capability(SC, _),
    aggregate_all(count, (app(Ag, C), tc(C, _, SC)), N),
    aggregate_all(count, (viol(Ag, C), tc(C, _, SC)), V).
score_mr(Ag, SC, MR, N, V) :- agent(Ag), distinct(MR-SC, tc(_, MR, SC)),
    aggregate_all(count, (app(Ag, C), tc(C, MR, SC)), N),
    aggregate_all(count, (viol(Ag, C), tc(C, MR, SC)), V).
invalid_cases(Ag, SC, N) :- agent(Ag), capability(SC, _),
    aggregate_all(count, (inv(Ag, C), tc(C, _, SC)), N).

% Per trajectory and per object (the error-rate tables): cases that touch a trajectory or object.
case_traj(C, T) :- cq(C, Q), query_traj(Q, T).
case_object(C, T, O) :- cq(C, Q), query_traj(Q, T), query_object(Q, O).
score_traj(Ag, T, N, V) :- agent(Ag), distinct(T, (tc(C, _, _), case_traj(C, T))),
    aggregate_all(count, C1, distinct(C1, (app(Ag, C1), case_traj(C1, T))), N),
    aggregate_all(count, C2, distinct(C2, (viol(Ag, C2), case_traj(C2, T))), V).
score_object(Ag, T, O, N, V) :- agent(Ag), distinct(T-O, (tc(C, _, _), case_object(C, T, O))),
    aggregate_all(count, C1, distinct(C1, (app(Ag, C1), case_object(C1, T, O))), N),
    aggregate_all(count, C2, distinct(C2, (viol(Ag, C2), case_object(C2, T, O))), V).

% Per answer: the cases that need it and how many of them are violated (the MR verifier's reward).
query_score(Ag, Q, N, V) :- distinct(Ag-Q, (answer(Ag, Q, _), cq(_, Q))),
    aggregate_all(count, C1, distinct(C1, (cq(C1, Q), app(Ag, C1))), N),
    aggregate_all(count, C2, distinct(C2, (cq(C2, Q), viol(Ag, C2))), V).
