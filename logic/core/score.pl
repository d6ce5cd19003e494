% Scores (the Prolog twin of score.lp; the headline score/4 is in headline.pl), read from the stored
% app_i/2, viol_i/2 and inv_i/2 tables of numbered cases (driver.pl).
% Counts per group (capability, MR, trajectory, object, query) are made in one pass per agent:
% collect the group of each (case, group) pair, sort and count each group's run, instead of
% scanning all of an agent's cases once per group (which grows with the square of the facts).

:- use_module(library(pairs)).
:- use_module(library(assoc)).

%% ml_group_counts(+Template, :Goal, -Assoc): Key -> number of distinct I for the Key-I pairs that
%% Template takes over the solutions of Goal.
ml_group_counts(Template, Goal, Assoc) :-
    findall(Template, Goal, Pairs0), sort(Pairs0, Pairs), pairs_keys(Pairs, Keys), clumped(Keys, Counts),
    list_to_assoc(Counts, Assoc).
%% ml_key_counts(+Key, :Goal, -Assoc): Key -> number of solutions of Goal with that Key, for goals
%% whose solutions are distinct cases by construction (each stored table holds a row once).
ml_key_counts(Key, Goal, Assoc) :-
    findall(Key, Goal, Keys0), msort(Keys0, Keys), clumped(Keys, Counts), list_to_assoc(Counts, Assoc).
ml_count(Assoc, Key, N) :- ( get_assoc(Key, Assoc, N0) -> N = N0 ; N = 0 ).

% The per-MR counts of each agent are made once per run, by ml_store_scores/0 (the driver calls it
% after the verdicts), and stored as ml_score_mr/5; the pooled and per-kind totals add them up, as
% score.lp does (a case belongs to one MR within a capability: cases.pl reports one that does not).
:- dynamic ml_score_mr/5, ml_mr_sc/2.
% An agent's count is the MR's cases less those that do not apply to the agent (off_i/2, few).
:- dynamic ml_mr_sc_cases/3.
ml_store_scores :-
    ml_key_counts(M-S, tc_i(_, M, S), Cases), assoc_to_list(Cases, Counts),
    forall(member((MR-SC)-N, Counts), ( assertz(ml_mr_sc(MR, SC)), assertz(ml_mr_sc_cases(MR, SC, N)) )),
    forall(agent(Ag), ml_store_agent_scores(Ag)).
ml_store_agent_scores(Ag) :-
    ml_key_counts(M1-S1, (off_i(Ag, I1), tc_i(I1, M1, S1)), Offs),
    ml_key_counts(M2-S2, (viol_i(Ag, I2), tc_i(I2, M2, S2)), Viols),
    forall(ml_mr_sc_cases(MR, SC, All), ( ml_count(Offs, MR-SC, F), N is All - F, ml_count(Viols, MR-SC, V),
                                          assertz(ml_score_mr(Ag, SC, MR, N, V)) )).
ml_forget_scores :- ml_clear([ml_score_mr/5, ml_mr_sc/2, ml_mr_sc_cases/3]).

score_mr(Ag, SC, MR, N, V) :- ml_score_mr(Ag, SC, MR, N, V).
score_pooled(Ag, SC, N, V) :- agent(Ag), capability(SC, _),
    aggregate_all(sum(N1), ml_score_mr(Ag, SC, _, N1, _), N), aggregate_all(sum(V1), ml_score_mr(Ag, SC, _, _, V1), V).

% Per kind of evidence (the MR sets; an MR that names none is a user MR), as in score.lp.
mr_kind(MR, K) :- mr_set(MR, K).
mr_kind(MR, user) :- mr(MR), \+ mr_set(MR, _).
score_set(Ag, SC, K, N, V) :- agent(Ag), distinct(K-SC, (ml_mr_sc(MR0, SC), mr_kind(MR0, K))),
    aggregate_all(sum(N1), (ml_score_mr(Ag, SC, MR, N1, _), mr_kind(MR, K)), N),
    aggregate_all(sum(V1), (ml_score_mr(Ag, SC, MR, _, V1), mr_kind(MR, K)), V).
% A case counts once per capability even where two MRs of that capability share it (a rule error).
invalid_cases(Ag, SC, N) :- agent(Ag),
    ml_group_counts(S1-I1, (inv_i(Ag, I1), tc_i(I1, _, S1)), Invs),
    capability(SC, _), ml_count(Invs, SC, N).

% What `metalogic check` prints under the score table (score.lp): the number of test cases and each
% agent's number of violation rows (one per case and reason).
case_count(N) :- aggregate_all(count, tc_i(_, _, _), N).
violation_count(Ag, N) :- agent(Ag), aggregate_all(count, (vr_i(Ag, I, _), tc_i(I, _, _)), N).
