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
