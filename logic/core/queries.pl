% Query contents: the kind of each query, its trajectory, the states and objects it mentions, and
% the type of answer it takes. The Prolog twin of queries.lp.

% The driver stores the query tables below once per run (ml_store_queries/0), before any MR asks
% them: SWI-Prolog indexes a call by the arguments it binds, so an MR joining queries by content
% (pair_query(Q, obj_dir, T, S, A, B) with T, S and A bound) finds them directly, where a search
% through query/2 would scan every query of that kind once per call.
:- dynamic ml_query_row/3, ml_query_class/3, ml_later_form/1, ml_move_row/5, ml_pair_row/6, ml_object_row/5, ml_content_h/3,
           ml_any_object_row/5.

% Every query's kind and trajectory, whatever form it was asked in.
query_of(Q, K, T) :- ml_query_row(Q, K, T).

% A content asked in several surface forms is one question: its first id (in id order) stands for
% it wherever MRs join queries by content, so a second form adds an MR3 case and nothing else.
later_form(Q) :- ml_later_form(Q).
move_query(Q, K, T, S1, S2) :- ml_move_row(Q, K, T, S1, S2).
pair_query(Q, K, T, S, A, B) :- ml_pair_row(Q, K, T, S, A, B).
object_query(Q, K, T, S, O) :- ml_object_row(Q, K, T, S, O).

% Lookups that take every id, later forms included (query/2 itself is indexed by its id and by the
% name of its content only, so a search by content would scan every query of that kind):
% query_by_content(C, Q) is query(Q, C) for a given content C (stored under C's term_hash/2), and
% any_object_query(Q, K, T, S, O) is query(Q, K(T, S, O)) for the object kinds.
query_by_content(C, Q) :- term_hash(C, H), ml_content_h(H, Q, C).
any_object_query(Q, K, T, S, O) :- ml_any_object_row(Q, K, T, S, O).

ml_store_queries :-
    forall(( query(Q, C), C =.. [K, T|Rest], length(Rest, N), A is N + 1, query_kind(K, A, _, _) ),
           assertz(ml_query_row(Q, K, T))),
    forall(( ml_query_row(Q, K, _), query_kind(K, _, SC, Ty) ), assertz(ml_query_class(Q, SC, Ty))),
    findall(C-Q, query(Q, C), Pairs0), sort(Pairs0, Pairs),     % by content, then by id
    ml_store_later(Pairs, '$none'),
    forall(( query(Q, C), \+ ml_later_form(Q) ), ml_store_row(Q, C)),
    forall(query(Q, C), ( term_hash(C, H), assertz(ml_content_h(H, Q, C)) )),
    forall(( query(Q, C), C =.. [K, T, S, O], memberchk(K, [size, depth, ego_dist]) ),
           assertz(ml_any_object_row(Q, K, T, S, O))).

% Every id after the first of a content is a later form (an id with two contents is one if either
% content was asked before, as in queries.lp).
ml_store_later([], _).
ml_store_later([C-Q|Rest], Prev) :-
    ( C == Prev, \+ ml_later_form(Q) -> assertz(ml_later_form(Q)) ; true ),
    ml_store_later(Rest, C).

ml_store_row(Q, move_dir(T, S1, S2)) :- !, assertz(ml_move_row(Q, move_dir, T, S1, S2)).
ml_store_row(Q, move_dist(T, S1, S2)) :- !, assertz(ml_move_row(Q, move_dist, T, S1, S2)).
ml_store_row(Q, C) :- C =.. [K, T, S, A, B], memberchk(K, [obj_dir, obj_dist, map_dir, map_dist]), !,
    assertz(ml_pair_row(Q, K, T, S, A, B)).
ml_store_row(Q, C) :- C =.. [K, T, S, O], memberchk(K, [size, depth, ego_dist]), !,
    assertz(ml_object_row(Q, K, T, S, O)).
ml_store_row(_, _).

ml_forget_queries :-
    ml_clear([ml_query_row/3, ml_query_class/3, ml_later_form/1, ml_move_row/5, ml_pair_row/6, ml_object_row/5,
              ml_content_h/3, ml_any_object_row/5]).

% Stored with the queries (ml_query_class(Q, SC, Ty): query_of/3 joined with query_kind/4), as
% every answer an MR reads asks its query's type.
query_sc(Q, SC) :- ml_query_class(Q, SC, _).
query_type(Q, Ty) :- ml_query_class(Q, _, Ty).
query_traj(Q, T) :- query_of(Q, _, T).

% answer_fits(Q, V): V is a value of the type query Q takes (or the marker `invalid`).
answer_fits(Q, V) :- query_type(Q, move), move_value(V).
answer_fits(Q, V) :- query_type(Q, Ty), Ty \== move, atom(V), dir_value(Ty, V).
answer_fits(Q, V) :- query_type(Q, Ty), magnitude(Ty), integer(V), V >= 0.
answer_fits(_, invalid).

dir_answer(Ag, Q, V) :- answer(Ag, Q, V), query_type(Q, Ty), Ty \== move, atom(V), dir_value(Ty, V).
move_answer(Ag, Q, V) :- answer(Ag, Q, V), query_type(Q, move), move_value(V).
mag_answer(Ag, Q, V) :- answer(Ag, Q, V), query_type(Q, Ty), magnitude(Ty), integer(V), V >= 0.
query_object(Q, O) :- query(Q, C), C =.. [K, _, _, A, B], memberchk(K, [obj_dir, obj_dist, map_dir, map_dist]),
    member(O, [A, B]).
query_object(Q, O) :- query(Q, C), C =.. [K, _, _, O], memberchk(K, [size, depth, ego_dist]).
