% Ranking retrieved memory cards, SWI-Prolog version (the twin of rank.lp).
%
% Law: among the candidates whose similarity reaches the floor, score = (1 - eta) * z(similarity)
% + eta * z(TRS), z over those candidates (0 when all are equal); keep the best k; ties go to the
% more similar card, then the lower card id. Same fixed-point units and roundings as rank.lp; the
% integer square root is computed here from the float root and corrected to be exact.
%
% rank_lines(+Facts, -Lines): Facts is a list of cand/3 and param_override/2 terms (see rank.lp);
% Lines are pick(Card, Rank, Score), scored(Card, Zsim, Ztrs, Score) and error(E), one canonical
% text each, sorted.

:- module(metalogic_memory_rank, [rank_lines/2, isqrt/2]).

:- include('rank.decl').

:- include('param_rule.pl').

rank_lines(Facts, Lines) :-
    findall(T, result(Facts, T), Ts),
    findall(L, ( member(T, Ts), with_output_to(string(L), user:ml_write(current_output, T)) ), Ls),
    sort(Ls, Lines).

result(Facts, T) :-
    pool(Facts, Pool),
    scores(Facts, Pool, Scored),
    (   member(s(I, ZS, ZV, X, _), Scored), T = scored(I, ZS, ZV, X)
    ;   ordered(Scored, Order), param(Facts, rank_k, K),
        nth1(R, Order, I-X), R =< K, T = pick(I, R, X)
    ).
result(Facts, error(E)) :- input_error(Facts, E).

%% milli(+X, -Y): X/1000 rounded to the nearest whole, halves away from zero.
milli(X, Y) :- X >= 0, !, Y is (X + 500) // 1000.
milli(X, Y) :- Y is (X - 500) // 1000.

pool(Facts, Pool) :-
    param(Facts, rank_floor, F), Min is F * 1000,
    findall(c(I, S, V, Sim), ( member(cand(I, Sim, Trs), Facts), Sim >= Min,
                                milli(Sim, S), milli(Trs, V) ), Pool0),
    sort(Pool0, Pool).

scores(_, [], []) :- !.
scores(Facts, Pool, Scored) :-
    param(Facts, rank_eta, E),
    findall(S, member(c(_, S, _, _), Pool), Ss), zscores(Ss, ZSs),
    findall(V, member(c(_, _, V, _), Pool), Vs), zscores(Vs, ZVs),
    findall(s(I, ZS, ZV, X, Sim),
            ( nth1(J, Pool, c(I, _, _, Sim)), nth1(J, ZSs, ZS), nth1(J, ZVs, ZV),
              X is (1000 - E) * ZS + E * ZV ),
            Scored).

%% zscores(+Values, -Zs): (x - mean) / sd in thousandths of a standard deviation.
zscores(Xs, Zs) :-
    length(Xs, N), sum_list(Xs, Total), Mean is Total // N,
    findall(D, ( member(X, Xs), D is X - Mean ), Ds),
    foldl([D, A0, A]>>(A is A0 + D * D), Ds, 0, Q),
    Sq is Q * 100 // N, isqrt(Sq, Sd),
    findall(Z, ( member(D, Ds), ( Sd > 0 -> Z is D * 10000 // Sd ; Z = 0 ) ), Zs).

%% isqrt(+X, -R): the largest R with R * R =< X.
isqrt(X, R) :- R0 is truncate(sqrt(X)), isqrt_fix(X, R0, R).
isqrt_fix(X, R0, R) :- R0 * R0 > X, !, R1 is R0 - 1, isqrt_fix(X, R1, R).
isqrt_fix(X, R0, R) :- (R0 + 1) * (R0 + 1) =< X, !, R1 is R0 + 1, isqrt_fix(X, R1, R).
isqrt_fix(_, R, R).

%% ordered(+Scored, -Order): card-score pairs, best first (score, then similarity, then lower id).
ordered(Scored, Order) :-
    findall(k(NX, NSim, I)-(I-X), ( member(s(I, _, _, X, Sim), Scored), NX is -X, NSim is -Sim ), Keyed),
    keysort(Keyed, Sorted), pairs_values(Sorted, Order).

input_error(Facts, too_many_candidates(N)) :-
    findall(I, member(cand(I, _, _), Facts), Is0), sort(Is0, Is), length(Is, N), N > 500.
input_error(Facts, two_candidates(I)) :-
    member(cand(I, S, T), Facts), member(cand(I, S2, T2), Facts), (S, T) @< (S2, T2).
input_error(Facts, similarity_out_of_range(I, S)) :-
    member(cand(I, S, _), Facts), \+ between(-1000000, 1000000, S).
input_error(Facts, trs_out_of_range(I, T)) :-
    member(cand(I, _, T), Facts), \+ between(0, 1000000, T).
input_error(Facts, bad_param(rank_eta, V)) :- param(Facts, rank_eta, V), \+ between(0, 1000, V).
input_error(Facts, bad_param(rank_k, V)) :- param(Facts, rank_k, V), V < 1.
input_error(Facts, bad_param(rank_floor, V)) :- param(Facts, rank_floor, V), \+ between(-1000, 1000, V).
