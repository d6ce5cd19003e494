% Scores (the Prolog twin of score.lp; the headline score/4 is in headline.pl), read from the stored app/2, viol/2 and inv/2 tables.
% Counts per group (capability, MR, trajectory, object, query) are made in one pass per agent:
% collect Group-Case pairs, sort them (dropping duplicates) and count each group's run, instead of
% scanning all of an agent's cases once per group (which grows with the square of the facts).

:- use_module(library(pairs)).
:- use_module(library(assoc)).

%% ml_group_counts(+Template, :Goal, -Assoc): Key -> number of distinct Case for the Key-Case
%% pairs that Template takes over the solutions of Goal.
ml_group_counts(Template, Goal, Assoc) :-
    findall(Template, Goal, Pairs0), sort(Pairs0, Pairs), pairs_keys(Pairs, Keys), clumped(Keys, Counts),
    list_to_assoc(Counts, Assoc).
ml_count(Assoc, Key, N) :- ( get_assoc(Key, Assoc, N0) -> N = N0 ; N = 0 ).

score_pooled(Ag, SC, N, V) :- agent(Ag),
    ml_group_counts(S1-C1, (app(Ag, C1), tc(C1, _, S1)), Apps),
    ml_group_counts(S2-C2, (viol(Ag, C2), tc(C2, _, S2)), Viols),
    capability(SC, _), ml_count(Apps, SC, N), ml_count(Viols, SC, V).

% Per kind of evidence (the MR sets; an MR that names none is a user MR), as in score.lp.
mr_kind(MR, K) :- mr_set(MR, K).
mr_kind(MR, user) :- mr(MR), \+ mr_set(MR, _).
score_set(Ag, SC, K, N, V) :- agent(Ag),
    ml_group_counts(K1-C1, (app(Ag, C1), tc(C1, M1, S1), mr_kind(M1, G1), K1 = G1-S1), Apps),
    ml_group_counts(K2-C2, (viol(Ag, C2), tc(C2, M2, S2), mr_kind(M2, G2), K2 = G2-S2), Viols),
    distinct(K-SC, (tc(_, MR, SC), mr_kind(MR, K))), ml_count(Apps, K-SC, N), ml_count(Viols, K-SC, V).
score_mr(Ag, SC, MR, N, V) :- agent(Ag),
    ml_group_counts(K1-C1, (app(Ag, C1), tc(C1, M1, S1), K1 = M1-S1), Apps),
    ml_group_counts(K2-C2, (viol(Ag, C2), tc(C2, M2, S2), K2 = M2-S2), Viols),
    distinct(MR-SC, tc(_, MR, SC)), ml_count(Apps, MR-SC, N), ml_count(Viols, MR-SC, V).
invalid_cases(Ag, SC, N) :- agent(Ag),
    ml_group_counts(S1-C1, (inv(Ag, C1), tc(C1, _, S1)), Invs),
    capability(SC, _), ml_count(Invs, SC, N).

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
