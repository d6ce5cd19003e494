% Rewards for memory visits, SWI-Prolog version (the twin of reward.lp): the truth verifier (the
% answer equals the true one; magnitudes within truth_tol thousandths of it) and the label-free
% mr verifier (the share of the test cases involving the answer that hold, in thousandths, halves
% up). Uses magnitude/1 from tables.facts, loaded in the user module by the shared engine.
%
% reward_lines(+Facts, -Lines): Facts is a list of given/2, answer_type/2, truth/2, cases/3 and
% param_override/2 terms (see reward.lp); Lines are reward(Q, Verifier, R) and error(E), sorted.

:- module(metalogic_memory_reward, [reward_lines/2]).

:- include('reward.decl').

:- include('param_rule.pl').

reward_lines(Facts, Lines) :-
    findall(L, ( result(Facts, T), with_output_to(string(L), user:ml_write(current_output, T)) ), Ls),
    sort(Ls, Lines).

right(Facts, Q) :- member(given(Q, A), Facts), memberchk(truth(Q, A), Facts), !.
right(Facts, Q) :-
    member(given(Q, A), Facts), member(truth(Q, T), Facts), integer(A), integer(T),
    member(answer_type(Q, Ty), Facts), user:magnitude(Ty), param(Facts, truth_tol, Tol),
    abs(A - T) * 1000 =< Tol * T, !.

result(Facts, reward(Q, truth, R)) :-
    member(given(Q, _), Facts), member(truth(Q, _), Facts),
    ( right(Facts, Q) -> R = 1000 ; R = 0 ).
result(Facts, reward(Q, mr, R)) :-
    member(given(Q, _), Facts), member(cases(Q, N, V), Facts), N > 0,
    R is ((N - V) * 1000 + N // 2) // N.
result(Facts, error(E)) :- input_error(Facts, E).

input_error(Facts, bad_cases(Q, N, V)) :- member(cases(Q, N, V), Facts), \+ between(0, N, V).
input_error(Facts, two_answers(Q)) :- member(given(Q, A), Facts), member(given(Q, B), Facts), A @< B.
input_error(Facts, bad_param(truth_tol, V)) :- param(Facts, truth_tol, V), \+ between(0, 1000, V).
