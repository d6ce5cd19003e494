% Query contents: the kind of each query, its trajectory, the states and objects it mentions, and
% the type of answer it takes. The Prolog twin of queries.lp.

move_query(Q, move_dir, T, S1, S2) :- query(Q, move_dir(T, S1, S2)).
move_query(Q, move_dist, T, S1, S2) :- query(Q, move_dist(T, S1, S2)).
pair_query(Q, obj_dir, T, S, A, B) :- query(Q, obj_dir(T, S, A, B)).
pair_query(Q, obj_dist, T, S, A, B) :- query(Q, obj_dist(T, S, A, B)).
pair_query(Q, map_dir, T, S, A, B) :- query(Q, map_dir(T, S, A, B)).
pair_query(Q, map_dist, T, S, A, B) :- query(Q, map_dist(T, S, A, B)).
object_query(Q, size, T, S, O) :- query(Q, size(T, S, O)).
object_query(Q, depth, T, S, O) :- query(Q, depth(T, S, O)).
object_query(Q, ego_dist, T, S, O) :- query(Q, ego_dist(T, S, O)).

query_of(Q, K, T) :- move_query(Q, K, T, _, _).
query_of(Q, K, T) :- pair_query(Q, K, T, _, _, _).
query_of(Q, K, T) :- object_query(Q, K, T, _, _).

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
query_object(Q, A) :- pair_query(Q, _, _, _, A, _).
query_object(Q, B) :- pair_query(Q, _, _, _, _, B).
query_object(Q, O) :- object_query(Q, _, _, _, O).
