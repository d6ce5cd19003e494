% MR18 joint realisability: all object relations one agent gives in one frame must fit one placement
% of the objects; a chain of "farther" (or left, or above) answers that closes on itself cannot.
:- include('mr18_joint.decl').

% The difference constraints and the two shapes of cycle are explained in mr18_joint.lp.
mr18_q(Q, T, S, A, B) :- pair_query(Q, obj_dir, T, S, A, B), A \== B.
mr18_frame_of(T, S) :- distinct(T-S, mr18_q(_, T, S, _, _)), aggregate_all(count, mr18_q(_, T, S, _, _), N), N >= 3,
    aggregate_all(set(O), ( mr18_q(_, T, S, A, B), member(O, [A, B]) ), Os), length(Os, No), No >= 4.
:- dynamic mr18_frame_row/2.
ml_mr_store(mr18_store, [mr18_frame_row/2]).
mr18_store :- ml_forall_set(T-S, mr18_frame_of(T, S), assertz(mr18_frame_row(T, S))).
testcase(mr18(T, S), mr18, sc2a) :- mr18_frame_row(T, S).
case_query(mr18(T, S), Q) :- mr18_frame_row(T, S), mr18_q(Q, T, S, _, _).

mr18_axis(side, SL, _, _, SL).
mr18_axis(depth, _, SD, _, SD).
mr18_axis(height, _, _, SU, SU).
mr18_sign(Ag, Q, X, Sg) :- dir_answer(Ag, Q, N), dir_name(ego, N, SL, SD, SU), mr18_axis(X, SL, SD, SU, Sg).
mr18_gt(Ag, T, S, X, U, V, Q) :- mr18_q(Q, T, S, A, B), mr18_sign(Ag, Q, X, Sg),
    ( Sg =:= 1 -> U = A, V = B ; Sg =:= -1, U = B, V = A ).
mr18_level(Ag, T, S, X, U, V, Q) :- mr18_q(Q, T, S, A, B), mr18_sign(Ag, Q, X, 0), ( U = A, V = B ; U = B, V = A ).
% Walks with their balance, as in mr18_joint.lp, found breadth-first from each start: states V-D,
% D within -2..2 (a strict relation adds 1, held at 2; a level one subtracts 1, dropped below -2).
mr18_step(Ag, T, S, X, V, D, W, D2) :- mr18_gt(Ag, T, S, X, V, W, _), D2 is min(D + 1, 2).
mr18_step(Ag, T, S, X, V, D, W, D2) :- D > -2, mr18_level(Ag, T, S, X, V, W, _), D2 is D - 1.
mr18_walk(Ag, T, S, X, U, V, D) :- mr18_start(Ag, T, S, X, U), mr18_first(Ag, T, S, X, U, Firsts),
    mr18_bfs(Ag, T, S, X, Firsts, Firsts, All), member(V-D, All).
mr18_start(Ag, T, S, X, U) :- distinct(U, ( mr18_gt(Ag, T, S, X, U, _, _) ; mr18_level(Ag, T, S, X, U, _, _) )).
mr18_first(Ag, T, S, X, U, Firsts) :-
    findall(W-D, ( mr18_gt(Ag, T, S, X, U, W, _), D = 1 ; mr18_level(Ag, T, S, X, U, W, _), D = -1 ), F0), sort(F0, Firsts).
mr18_bfs(_, _, _, _, [], Seen, Seen).
mr18_bfs(Ag, T, S, X, [V-D | Rest], Seen, Out) :-
    findall(W-D2, ( mr18_step(Ag, T, S, X, V, D, W, D2), \+ memberchk(W-D2, Seen) ), N0), sort(N0, New),
    append(Seen, New, Seen1), append(Rest, New, Next), mr18_bfs(Ag, T, S, X, Next, Seen1, Out).
mr18_axis_name(side).
mr18_axis_name(depth).
mr18_axis_name(height).
mr18_bad(Ag, T, S, X, U) :- mr18_axis_name(X), mr18_start(Ag, T, S, X, U), once(( mr18_walk(Ag, T, S, X, U, U, D), D >= 0 )).
violates(Ag, mr18(T, S), no_placement) :- mr18_frame_row(T, S), agent(Ag), once(mr18_bad(Ag, T, S, _, _)).

mr18_edge(Ag, T, S, X, P, R, Q) :- ( mr18_gt(Ag, T, S, X, P, R, Q) ; mr18_level(Ag, T, S, X, P, R, Q) ).
explain(Ag, mr18(T, S), answer(Ag, Q, N)) :- distinct(Q, mr18_cycle(Ag, T, S, _, Q)), answer(Ag, Q, N).
mr18_cycle(Ag, T, S, X, Q) :- mr18_axis_name(X), mr18_bad(Ag, T, S, X, U), mr18_edge(Ag, T, S, X, P, R, Q),
    once(mr18_walk(Ag, T, S, X, U, P, _)), once(mr18_walk(Ag, T, S, X, R, U, _)).
% Each relation of a cycle on its axis, for the report's picture (see mr18_joint.lp).
explain(Ag, mr18(T, S), axis_relation(X, Q, U, V, beyond)) :- distinct(X-Q, mr18_cycle(Ag, T, S, X, Q)),
    mr18_gt(Ag, T, S, X, U, V, Q).
explain(Ag, mr18(T, S), axis_relation(X, Q, A, B, level)) :- distinct(X-Q, mr18_cycle(Ag, T, S, X, Q)),
    mr18_sign(Ag, Q, X, 0), mr18_q(Q, T, S, A, B).

% The answers that cannot all be right: on each axis that no placement fits, the relations of its
% cycles, as explained (see mr18_joint.lp).
:- multifile conflict/4.
:- dynamic conflict/4.
conflict(Ag, mr18(T, S), X, Q) :- violated(Ag, mr18(T, S)), mr18_cycle(Ag, T, S, X, Q).
