% The headline score of a capability: the score of its weakest kind of evidence (the Prolog twin
% of headline.lp, which says why). Weakest: the lowest 1000 * (N - V) // N; among equals the kind
% with more cases, then the first by name. Where no kind has cases for the agent: 0 of 0.

score(Ag, SC, N, V) :- agent(Ag), ml_set_ranks(Ag, Ranked), capability(SC, _),
    ( member(SC-(_-_-_-N-V), Ranked) -> true ; N = 0, V = 0 ).
score_from(Ag, SC, K) :- agent(Ag), ml_set_ranks(Ag, Ranked), member(SC-(_-_-K-_-_), Ranked).

%% ml_set_ranks(+Ag, -Ranked): SC-(P-M-K-N-V) for the weakest kind K of each capability SC that
%% has cases, P its permille, M = -N (more cases first).
ml_set_ranks(Ag, Ranked) :-
    findall(SC-(P-M-K-N-V), (score_set(Ag, SC, K, N, V), N > 0, P is (N - V) * 1000 // N, M is -N), All),
    msort(All, Sorted), ml_first_per_key(Sorted, Ranked).
ml_first_per_key([], []).
ml_first_per_key([K-X|Rest], [K-X|Out]) :- ml_drop_key(K, Rest, Rest1), ml_first_per_key(Rest1, Out).
ml_drop_key(K, [K-_|Rest], Out) :- !, ml_drop_key(K, Rest, Out).
ml_drop_key(_, Rest, Rest).
