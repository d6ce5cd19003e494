% Transfer Reliability Score (TRS) of memory cards, SWI-Prolog version (the twin of trs.lp).
%
% Law: v = (lambda * v0 + c) / (lambda + n) for a card with n visits whose verified rewards sum to
% c: lambda imaginary visits worth v0 each, plus the real ones. Same units as trs.lp (rewards and c
% in thousandths, v0 in thousandths, lambda in whole visits, v in millionths rounded half up).
% Prolog integers are unbounded, so the rounding is written directly as one exact division; the
% clingo twin splits it to stay within 32 bits, and tests check the two agree.
%
% trs_lines(+Facts, -Lines): Facts is a list of stats/3, visit/3 and param_override/2 terms (see
% trs.lp); Lines are the results trs(Card, N, C, V) and error(E), one canonical text each, sorted.

:- module(metalogic_memory_trs, [trs_lines/2, trs_value/4]).

:- include('trs.decl').

:- include('param_rule.pl').

trs_lines(Facts, Lines) :-
    findall(L, ( result(Facts, T), with_output_to(string(L), user:ml_write(current_output, T)) ), Ls),
    sort(Ls, Lines).

result(Facts, trs(I, N, C, V)) :-
    member(stats(I, N0, C0), Facts),
    findall(Key-R, member(visit(I, Key, R), Facts), Pairs0), sort(Pairs0, Pairs),
    length(Pairs, K), pairs_values(Pairs, Rs), sum_list(Rs, G),
    N is N0 + K, C is C0 + G,
    param(Facts, trs_lambda, L), param(Facts, trs_v0, V0),
    trs_value(L-V0, N, C, V).
result(Facts, error(E)) :- input_error(Facts, E).

%% trs_value(+Lambda-V0, +N, +C, -V): the TRS in millionths, rounded half up.
trs_value(L-V0, N, C, V) :-
    Num is L * V0 + C, D is L + N,
    V is (2 * Num * 1000 + D) // (2 * D).

input_error(Facts, unknown_card(I, Key)) :-
    member(visit(I, Key, _), Facts), \+ memberchk(stats(I, _, _), Facts).
input_error(Facts, reward_out_of_range(I, Key, R)) :-
    member(visit(I, Key, R), Facts), \+ between(0, 1000, R).
input_error(Facts, bad_stats(I, N, C)) :-
    member(stats(I, N, C), Facts), Max is 1000 * N, \+ between(0, Max, C).
input_error(Facts, two_rewards(I, Key)) :-
    member(visit(I, Key, R1), Facts), member(visit(I, Key, R2), Facts), R1 < R2.
input_error(Facts, two_stats(I)) :-
    member(stats(I, N, C), Facts), member(stats(I, N2, C2), Facts), (N, C) @< (N2, C2).
input_error(Facts, bad_param(trs_lambda, V)) :- param(Facts, trs_lambda, V), V < 1.
input_error(Facts, bad_param(trs_v0, V)) :- param(Facts, trs_v0, V), \+ between(0, 1000, V).
