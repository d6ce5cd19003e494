% What `metalogic check --out` writes beyond the scores (the Prolog twin of detail.lp): the
% facts behind each violation, and the counts per trajectory, per object and per answer. The
% driver asks these only when they are written. Uses ml_group_counts/3 and ml_key_counts/3 of
% score.pl; cases are the driver's numbered cases (I), with their terms (C) where rules need them.

% The case's queries and the agent's answers to them, and the supporting queries the agent answered
% with those answers (each table walked once, for both kinds of fact).
explain_fact(Ag, I, _, F) :- cq_i(I, Q), ( query(Q, K), F = query(Q, K) ; answer(Ag, Q, V), F = answer(Ag, Q, V) ).
explain_fact(Ag, I, _, F) :- cs_i(I, Q), answer(Ag, Q, V), ( query(Q, K), F = query(Q, K) ; F = answer(Ag, Q, V) ).
explain_fact(Ag, _, C, F) :- explain(Ag, C, F).

% Per trajectory and per object (the error-rate tables): cases that touch a trajectory or object.
% The places of every case are stored once (ml_store_detail/0, called by the driver before these
% are asked), with the number of cases of each trajectory, object and query; an agent's count is
% that number less the cases that do not apply to the agent (the driver's off_i/2, few), as in
% detail.lp, so
% each agent's pass reads its few cases off and its violated cases rather than all its cases.
:- dynamic ctraj_i/2, cobj_i/3, ml_traj_cases/2, ml_object_cases/3, ml_query_cases/2.
ml_store_detail :-
    forall(ml_case(I, _), ml_store_places(I)),
    ml_store_counts(T, ctraj_i(_, T), T-N, ml_traj_cases(T, N)),
    ml_store_counts(T-O, cobj_i(_, T, O), (T-O)-N, ml_object_cases(T, O, N)),
    ml_store_counts(Q, cq_i(_, Q), Q-N, ml_query_cases(Q, N)).
ml_store_places(I) :-
    ml_forall_set(T, (cq_i(I, Q), query_traj(Q, T)), assertz(ctraj_i(I, T))),
    ml_forall_set(T-O, (cq_i(I, Q), query_traj(Q, T), query_object(Q, O)), assertz(cobj_i(I, T, O))).
% ml_store_counts(+Key, :Goal, +Pair, +Fact): Fact for each Key-N pair counted over Goal's
% solutions (distinct cases by construction), in the order of the keys.
ml_store_counts(Key, Goal, Pair, Fact) :-
    findall(Key, Goal, Keys0), msort(Keys0, Keys), clumped(Keys, Counts),
    forall(member(Pair, Counts), assertz(Fact)).
ml_forget_detail :-
    ml_clear([ctraj_i/2, cobj_i/3, ml_traj_cases/2, ml_object_cases/3, ml_query_cases/2]).
score_traj(Ag, T, N, V) :- agent(Ag),
    ml_key_counts(T1, (off_i(Ag, I1), ctraj_i(I1, T1)), Offs),
    ml_key_counts(T2, (viol_i(Ag, I2), ctraj_i(I2, T2)), Viols),
    ml_traj_cases(T, All), ml_count(Offs, T, F), N is All - F, ml_count(Viols, T, V).
score_object(Ag, T, O, N, V) :- agent(Ag),
    ml_key_counts(T1-O1, (off_i(Ag, I1), cobj_i(I1, T1, O1)), Offs),
    ml_key_counts(T2-O2, (viol_i(Ag, I2), cobj_i(I2, T2, O2)), Viols),
    ml_object_cases(T, O, All), ml_count(Offs, T-O, F), N is All - F, ml_count(Viols, T-O, V).

% Per answer: the cases that need it and how many of them are violated (the MR verifier's reward).
% The three lists, each sorted by query, are joined in one walk (a lookup per answer in a tree
% of all queries would cost a search each).
query_score(Ag, Q, N, V) :- agent(Ag),
    ml_key_list(Q1, (off_i(Ag, I1), cq_i(I1, Q1)), Offs),
    ml_key_list(Q2, (viol_i(Ag, I2), cq_i(I2, Q2)), Viols),
    findall(Q0-All, (answer(Ag, Q0, _), ml_query_cases(Q0, All)), Qs0), sort(Qs0, Qs),
    ml_join_counts(Qs, Offs, Viols, Rows), member(Q-N-V, Rows).
%% ml_key_list(+Key, :Goal, -Counts): as ml_key_counts/3, as a list of Key-N sorted by key.
ml_key_list(Key, Goal, Counts) :- findall(Key, Goal, Keys0), msort(Keys0, Keys), clumped(Keys, Counts).
ml_join_counts([], _, _, []).
ml_join_counts([Q-All|Qs], Offs0, Viols0, [Q-N-V|Rows]) :-
    ml_take_count(Offs0, Q, F, Offs), ml_take_count(Viols0, Q, V, Viols), N is All - F,
    ml_join_counts(Qs, Offs, Viols, Rows).
% ml_take_count(+Counts0, +Key, -N, -Counts): N for Key in a sorted Key-N list (0 if absent), and the
% rest of the list after the keys up to Key.
ml_take_count([K-N0|Rest], Q, N, Out) :- K == Q, !, N = N0, Out = Rest.
ml_take_count([K-_|Rest], Q, N, Out) :- K @< Q, !, ml_take_count(Rest, Q, N, Out).
ml_take_count(Counts, _, 0, Counts).
