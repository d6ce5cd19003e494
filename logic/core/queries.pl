% Query contents: the kind of each query, its trajectory, the states and objects it mentions, and
% the type of answer it takes. The Prolog twin of queries.lp.

% Every query's kind and trajectory, whatever form it was asked in.
query_of(Q, K, T) :- query(Q, C), C =.. [K, T|Rest], length(Rest, N), A is N + 1, query_kind(K, A, _, _).

% A content asked in several surface forms is one question: its first id (in id order) stands for
% it wherever MRs join queries by content, so a second form adds an MR3 case and nothing else.
later_form(Q) :- query(Q, K), query(Q2, K), Q2 @< Q, !.
move_query(Q, move_dir, T, S1, S2) :- query(Q, move_dir(T, S1, S2)), \+ later_form(Q).
move_query(Q, move_dist, T, S1, S2) :- query(Q, move_dist(T, S1, S2)), \+ later_form(Q).
pair_query(Q, obj_dir, T, S, A, B) :- query(Q, obj_dir(T, S, A, B)), \+ later_form(Q).
pair_query(Q, obj_dist, T, S, A, B) :- query(Q, obj_dist(T, S, A, B)), \+ later_form(Q).
pair_query(Q, map_dir, T, S, A, B) :- query(Q, map_dir(T, S, A, B)), \+ later_form(Q).
pair_query(Q, map_dist, T, S, A, B) :- query(Q, map_dist(T, S, A, B)), \+ later_form(Q).
object_query(Q, size, T, S, O) :- query(Q, size(T, S, O)), \+ later_form(Q).
object_query(Q, depth, T, S, O) :- query(Q, depth(T, S, O)), \+ later_form(Q).
object_query(Q, ego_dist, T, S, O) :- query(Q, ego_dist(T, S, O)), \+ later_form(Q).

query_sc(Q, SC) :- query_of(Q, K, _), query_kind(K, _, SC, _).
query_type(Q, Ty) :- query_of(Q, K, _), query_kind(K, _, _, Ty).
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
