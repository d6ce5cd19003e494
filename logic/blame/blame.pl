% Blame on SWI-Prolog: the twin of diagnose.lp (with big.lp), weights.lp (with rate_cost.lp),
% power.lp with evidence.lp, reduce.lp, rates.lp and residual.lp. engine/check/blame.py hands both engines the same input lines; here they
% are read as data (read_term, never called) and the result lines are printed as clingo prints them
% (the driver's ml_emit/2).
%
% clingo optimises over all answers at once; here each group of linked answers (part/3, the groups
% engine/check/blame.py finds) is searched on its own by branch and bound, which gives the same optimum
% because groups share no conflict set. Certain: no diagnosis without the answer is as cheap as the
% optimum; possible: some diagnosis with it is.
:- module(ml_blame, [ml_blame_diagnose/2, ml_blame_estimate/2, ml_blame_reduce/2, ml_blame_evidence/2,
                     ml_blame_residual/2]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(assoc)).
:- use_module(library(pairs)).
:- use_module(library(aggregate)).
:- use_module(library(ordsets)).
:- use_module(library(solution_sequences)).

:- discontiguous diagnose_line/1.
:- dynamic conflict_set/4, answer_held/4, answer_mr/5, evidence/4, rate/3, power/4, pooled_power/3, param/2,
    big/2, part/3, tested_answers/3, untested_suspect/2, blamed/3, neglog/2, logistic/2.

load_neglog :- neglog(1, _), !.
load_neglog :- load_table('/neglog.facts').
load_logistic :- logistic(0, _), !.
load_logistic :- load_table('/logistic.facts').
load_table(Name) :-
    module_property(ml_blame, file(F)), file_directory_name(F, D), atom_concat(D, Name, T),
    setup_call_cleanup(open(T, read, S), read_facts(S), close(S)).

%% ml_blame_diagnose(+In, +Out): blame/2 (certain and possible, as blame_line/3 rows) and
%% big_blamed/3 lines for the input lines of file In, written to file Out.
ml_blame_diagnose(In, Out) :-
    reset, load_input(In),
    findall(L, diagnose_line(L), Ls0), sort(Ls0, Ls),
    write_lines(Out, Ls).

%% ml_blame_evidence(+In, +Out): evidence/4 lines (power.lp, then evidence.lp).
ml_blame_evidence(In, Out) :-
    reset, load_input(In),
    findall(L, power_line(L), Ps), forall(member(P, Ps), assertz(P)),
    findall(L, evidence_line(L), Ls0), sort(Ls0, Ls),
    write_lines(Out, Ls).

%% ml_blame_reduce(+In, +Out): dominated/2 and met/3 lines (reduce.lp).
ml_blame_reduce(In, Out) :-
    reset, load_input(In),
    findall(dominated(Ag, Q), dominated(Ag, Q), Ds),
    findall(met(Ag, C, K), met(Ag, C, K), Ms),
    append(Ds, Ms, Ls0), sort(Ls0, Ls),
    write_lines(Out, Ls).

%% ml_blame_estimate(+In, +Out): blame_count/5 and rate/3 lines (rates.lp).
ml_blame_estimate(In, Out) :-
    reset, load_input(In),
    findall(L, estimate_line(L), Ls0), sort(Ls0, Ls),
    write_lines(Out, Ls).

%% ml_blame_residual(+In, +Out): blame_residual/3 lines (residual.lp).
ml_blame_residual(In, Out) :-
    reset, load_input(In), load_logistic,
    findall(L, residual_line(L), Ls0), sort(Ls0, Ls),
    write_lines(Out, Ls).

reset :- forall(member(N/A, [conflict_set/4, answer_held/4, answer_mr/5, evidence/4, rate/3, power/4, pooled_power/3,
                             param/2, big/2, part/3, tested_answers/3, untested_suspect/2, blamed/3]),
                ( functor(H, N, A), retractall(H) )).
load_input(In) :- load_neglog, setup_call_cleanup(open(In, read, S, [encoding(utf8)]), read_facts(S), close(S)).
read_facts(S) :-
    read_term(S, T, [double_quotes(string), var_prefix(false)]),
    (   T == end_of_file -> true
    ;   ground(T), T \= (_ :- _), T \= (:- _) -> assertz(T), read_facts(S)
    ;   throw(error(not_a_fact(T), _))
    ).
write_lines(Out, Lines) :-
    setup_call_cleanup(open(Out, write, S, [encoding(utf8)]), forall(member(L, Lines), user:ml_emit(S, L)), close(S)).

% ---- weights (weights.lp)
suspect(Ag, Q) :- conflict_set(Ag, _, _, Q), \+ big(Ag, Q).
weight(Ag, Q, W) :-
    evidence(Ag, Q, SC, Ev), rate(Ag, SC, P), neglog(P, A), P1 is 1000 - P, neglog(P1, B),
    W0 is A - B + Ev, W is max(1, W0).

% ---- the evidence of the kept cases (evidence.lp)
evidence_line(evidence(Ag, Q, SC, E)) :-
    answer_held(Ag, Q, SC, _), param(blame_held_weight, Hw),
    aggregate_all(sum(H * Ev), ( answer_mr(Ag, Q, MR, H, _), case_evidence(Ag, SC, MR, Hw, Ev) ), E).
case_evidence(Ag, SC, MR, Hw, E) :-
    (   power(Ag, SC, MR, R) -> R1 is 1000 - R, neglog(R1, E)
    ;   pooled_power(Ag, MR, R) -> R1 is 1000 - R, neglog(R1, E)
    ;   E = Hw
    ).

% ---- answers no optimal diagnosis retracts (reduce.lp)
dominated(Ag, Q) :-
    findall(Ag0-Q0, conflict_set(Ag0, _, _, Q0), Keys0), sort(Keys0, Keys), member(Ag-Q, Keys),
    weight(Ag, Q, W),
    findall(C-K, conflict_set(Ag, C, K, Q), Sets0), sort(Sets0, Sets),
    others_min_sum(Sets, Ag, Q, 0, Sum), W > Sum.
others_min_sum([], _, _, Sum, Sum).
others_min_sum([C-K|Sets], Ag, Q, S0, Sum) :-
    findall(W2, ( conflict_set(Ag, C, K, Q2), Q2 \== Q, weight(Ag, Q2, W2) ), Ws), Ws \== [],
    min_list(Ws, M), S1 is S0 + M, others_min_sum(Sets, Ag, Q, S1, Sum).

% A set with another answer alone in a set of its own: every diagnosis meets it.
met(Ag, C, K) :-
    findall(Ag0-Q0, ( conflict_set(Ag0, C0, K0, Q0), \+ ( conflict_set(Ag0, C0, K0, Q1), Q1 \== Q0 ) ), Alone0),
    sort(Alone0, Alone),
    findall(Ag1-C1-K1, ( member(Ag1-Q, Alone), conflict_set(Ag1, C1, K1, Q),
                         conflict_set(Ag1, C1, K1, Q2), Q2 \== Q ), Sets0),
    sort(Sets0, Sets), member(Ag-C-K, Sets).

% ---- big groups (diagnose.lp)
diagnose_line(big_blamed(Ag, Q, Kind)) :-
    distinct(Ag-Q, (big(Ag, Q), conflict_set(Ag, _, _, Q))),
    ( big_alone(Ag, Q) -> Kind = certain ; Kind = possible ).
big_alone(Ag, Q) :- conflict_set(Ag, C, K, Q), \+ ( conflict_set(Ag, C, K, Q2), Q2 \== Q ), !.

% ---- exact groups: blame_line(Ag, Q, certain | possible) as blame/2 consequences
diagnose_line(blame_line(Ag, Q, Kind)) :-
    findall(Ag-Id, part(Ag, Id, _), Gs0), sort(Gs0, Gs),
    member(Ag-Id, Gs), group_blame(Ag, Id, Blamed), member(Q-Kind, Blamed).

group_blame(Ag, Id, Blamed) :-
    findall(Q, part(Ag, Id, Q), Qs0), sort(Qs0, Qs),
    findall(Q-W, ( member(Q, Qs), weight(Ag, Q, W) ), QWs), list_to_assoc(QWs, Ws),
    group_sets(Ag, Qs, Sets),
    min_cost(Sets, Ws, [], [], inf, Opt, Best),
    findall(Q-Kind, ( member(Q, Qs), answer_kind(Q, Sets, Ws, Opt, Best, Kind) ), Blamed).

% The group's distinct conflict sets, each a sorted list of its answers.
group_sets(Ag, Qs, Sets) :-
    findall(C-K, ( member(Q, Qs), conflict_set(Ag, C, K, Q) ), Ids0), sort(Ids0, Ids),
    findall(Set, ( member(C-K, Ids), findall(Q, conflict_set(Ag, C, K, Q), S0), sort(S0, Set) ), Sets0),
    sort(Sets0, Sets).

% In the optimum found: possible, and certain unless a diagnosis without it is as cheap.
% Outside it: not certain, and possible if a diagnosis with it is as cheap.
answer_kind(Q, Sets, Ws, Opt, Best, Kind) :-
    (   memberchk(Q, Best)
    ->  (   min_cost(Sets, Ws, [], [Q], Opt, _, _) -> Kind = possible ; Kind = certain )
    ;   min_cost(Sets, Ws, [Q], [], Opt, _, _), Kind = possible
    ).

%% min_cost(+Sets, +Ws, +In, +Out, +Bound, -Cost, -Chosen): the cheapest diagnosis that holds the
%% answers In and none of Out, costing at most Bound (inf: any), with its cost; fails if none.
min_cost(Sets, Ws, In, Out, Bound, Cost, Chosen) :-
    sort(In, In1), sort(Out, Out1), cost_of(In1, Ws, C0),
    ( Bound == inf -> Limit = inf ; Limit is Bound + 1 ),
    nb_setval(ml_blame_best, Limit-none),
    ( search(Sets, Ws, In1, Out1, C0) ; true ),
    nb_getval(ml_blame_best, Cost-Chosen), Chosen \== none.

cost_of(Qs, Ws, C) :- aggregate_all(sum(W), ( member(Q, Qs), get_assoc(Q, Ws, W) ), C).

% Branch and bound: take the open set with fewest allowed answers; try its answers cheapest first,
% each branch excluding the answers tried before it (so no diagnosis is reached twice).
search(Sets, Ws, In, Out, Cost) :-
    exclude(met_by(In), Sets, Open),
    (   Open == []
    ->  nb_getval(ml_blame_best, B-_), better(Cost, B), nb_setval(ml_blame_best, Cost-In), fail
    ;   lower_bound(Open, Ws, Out, LB), nb_getval(ml_blame_best, B-_), Total is Cost + LB, better(Total, B),
        narrowest(Open, Out, Ws, Choices),
        branch(Choices, [], Sets, Ws, In, Out, Cost)
    ).
met_by(In, S) :- ord_intersect(S, In).
better(_, inf) :- !.
better(C, B) :- C < B.

branch([W-Q|Rest], Tried, Sets, Ws, In, Out, Cost) :-
    (   C1 is Cost + W, ord_add_element(In, Q, In1), ord_union(Out, Tried, Out1),
        search(Sets, Ws, In1, Out1, C1)
    ;   ord_add_element(Tried, Q, Tried1), branch(Rest, Tried1, Sets, Ws, In, Out, Cost)
    ).

% The allowed answers of the open set with fewest of them, as Weight-Answer cheapest first.
narrowest(Open, Out, Ws, Choices) :-
    findall(N-WQs, ( member(S, Open), allowed(S, Out, Ws, WQs), length(WQs, N) ), Ps),
    keysort(Ps, [_-Choices|_]).
allowed(S, Out, Ws, WQs) :-
    findall(W-Q, ( member(Q, S), \+ ord_memberchk(Q, Out), get_assoc(Q, Ws, W) ), WQs0), msort(WQs0, WQs).

% A lower bound on what the open sets still cost: the cheapest allowed answer of each of a greedy
% choice of sets that share no answer. (A set with no allowed answer cannot be met: infinite.)
lower_bound(Open, Ws, Out, LB) :-
    findall(Min-S, ( member(S, Open), allowed(S, Out, Ws, [Min-_|_]) ), Ms),
    length(Open, NO), length(Ms, NM),
    (   NM < NO -> LB = 1000000000
    ;   msort(Ms, Sorted), reverse(Sorted, Desc), disjoint_sum(Desc, [], 0, LB)
    ).
disjoint_sum([], _, LB, LB).
disjoint_sum([M-S|Rest], Used, A0, LB) :-
    (   ord_intersect(S, Used) -> A1 = A0, Used1 = Used
    ;   A1 is A0 + M, ord_union(Used, S, Used1)
    ),
    disjoint_sum(Rest, Used1, A1, LB).

% ---- rates (rates.lp)
estimate_line(blame_count(Ag, SC, N, Cert, Poss)) :- blame_count(Ag, SC, N, Cert, Poss).
estimate_line(rate(Ag, SC, P)) :- blame_count(Ag, SC, N, Cert, Poss),
    param(blame_prior_permille, P0), param(blame_prior_weight, A),
    P1 is (1000 * (2 * Cert + Poss) + 2 * A * P0) // (2 * (N + A)), P is max(1, min(999, P1)).
blame_count(Ag, SC, N, Cert, Poss) :- tested_answers(Ag, SC, N),
    aggregate_all(count, blamed_sc(Ag, SC, _, certain), Cert),
    aggregate_all(count, blamed_sc(Ag, SC, _, possible), Poss).
blamed_sc(Ag, SC, Q, Kind) :- blamed(Ag, Q, Kind), once(answer_held(Ag, Q, SC, _)), \+ untested_suspect(Ag, Q).

% ---- the MRs' power over the answers that are wrong beyond doubt (power.lp)
power_line(power(Ag, SC, MR, R)) :-
    findall(Ag0-SC0-MR0, ( alone(Ag0, Q0), answer_held(Ag0, Q0, SC0, _), answer_mr(Ag0, Q0, MR0, _, _) ), Ks0),
    sort(Ks0, Ks), member(Ag-SC-MR, Ks),
    aggregate_all(sum(V), ( alone(Ag, Q), answer_held(Ag, Q, SC, _), answer_mr(Ag, Q, MR, _, V) ), B),
    aggregate_all(sum(H + V), ( alone(Ag, Q), answer_held(Ag, Q, SC, _), answer_mr(Ag, Q, MR, H, V) ), T),
    param(blame_power_prior_permille, P0), param(blame_power_prior_weight, A), T + A > 0,
    R1 is (1000 * B + P0 * A) // (T + A), R is max(1, min(999, R1)).
power_line(pooled_power(Ag, MR, R)) :-
    findall(Ag0-MR0, ( alone(Ag0, Q0), answer_mr(Ag0, Q0, MR0, _, _) ), Ks0), sort(Ks0, Ks), member(Ag-MR, Ks),
    aggregate_all(sum(V), ( alone(Ag, Q), answer_mr(Ag, Q, MR, _, V) ), B),
    aggregate_all(sum(H + V), ( alone(Ag, Q), answer_mr(Ag, Q, MR, H, V) ), T),
    param(blame_power_prior_permille, P0), param(blame_power_prior_weight, A), T + A > 0,
    R1 is (1000 * B + P0 * A) // (T + A), R is max(1, min(999, R1)).
alone(Ag, Q) :-
    findall(Ag0-Q0, conflict_set(Ag0, _, _, Q0), Ps0), sort(Ps0, Ps), member(Ag-Q, Ps),
    once(( conflict_set(Ag, C, K, Q), \+ ( conflict_set(Ag, C, K, Q2), Q2 \== Q ) )).

% ---- the wrong answers blame leaves unnamed (residual.lp)
residual_line(blame_residual(Ag, SC, R)) :-
    findall(Ag0-SC0, counted(Ag0, _, SC0), Ks0), sort(Ks0, Ks), member(Ag-SC, Ks),
    aggregate_all(sum(P), ( counted(Ag, Q, SC), wrong_share(Ag, Q, SC, P) ), S), R is (S + 500) // 1000.
counted(Ag, Q, SC) :- answer_held(Ag, Q, SC, H), \+ blamed(Ag, Q, _), \+ untested_suspect(Ag, Q),
    ( H > 0 -> true ; told(Ag, Q) ).
wrong_share(Ag, Q, SC, P) :-
    evidence(Ag, Q, SC, E), rate(Ag, SC, Pr), neglog(Pr, A), Pr1 is 1000 - Pr, neglog(Pr1, B), W is A - B + E,
    (   W < -760 -> P = 1000
    ;   logistic(W, P0) -> P = P0
    ;   P = 0
    ).
% told.lp: a set that holds the answer and is not met by another answer that is a set alone.
told(Ag, Q) :- conflict_set(Ag, C, K, Q), \+ set_met(Ag, C, K), !.
set_met(Ag, C, K) :- conflict_set(Ag, C, K, Q), conflict_set(Ag, C, K, Q2), Q2 \== Q, sure_wrong(Ag, Q), !.
sure_wrong(Ag, Q) :- conflict_set(Ag, C, K, Q), \+ ( conflict_set(Ag, C, K, Q2), Q2 \== Q ), !.
