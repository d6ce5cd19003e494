% Input checks the fact reader cannot make line by line (the Prolog twin of input.lp).

query_id(Q) :- query(Q, _), !.
known_query(Q) :- query_of(Q, _, _), !.

input_error(unknown_query_kind(Q, C)) :- query(Q, C), \+ known_query(Q).
input_error(query_reused(Q, C1, C2)) :- query(Q, C1), query(Q, C2), C1 \== C2.
input_error(answer_to_unknown_query(Ag, Q)) :- answer(Ag, Q, _), \+ query_id(Q).
input_error(answer_does_not_fit(Ag, Q, V, Ty)) :- answer(Ag, Q, V), query_type(Q, Ty), \+ answer_fits(Q, V).
input_error(two_answers(Ag, Q, V1, V2)) :- answer(Ag, Q, V1), answer(Ag, Q, V2), V1 \== V2.
input_error(form_of_unknown_query(Q)) :- form(Q, _), \+ query_id(Q).
input_error(empty_box(T, S, O)) :- detection(T, S, O, _, _, X1, Y1, X2, Y2), ( X2 < X1 ; Y2 < Y1 ).
% Facts form a set (a line written twice is one fact, as for clingo), so the checks count distinct
% values.
input_error(two_boxes(T, S, O)) :- distinct(T-S-O, detection(T, S, O, _, _, _, _, _, _)),
    aggregate_all(set(B), (detection(T, S, O, Cl, F, X1, Y1, X2, Y2), B = b(Cl, F, X1, Y1, X2, Y2)), [_, _ | _]).
input_error(two_cameras(T)) :- distinct(T, camera(T, _, _, _, _)),
    aggregate_all(set(c(A, B, C, D)), camera(T, A, B, C, D), [_, _ | _]).
input_error(two_pitches(T, S)) :- distinct(T-S, camera_pitch(T, S, _)),
    aggregate_all(set(P), camera_pitch(T, S, P), [_, _ | _]).
input_error(two_slacks(T)) :- distinct(T, box_slack(T, _)), aggregate_all(set(K), box_slack(T, K), [_, _ | _]).
input_error(two_class_slacks(T, Cl, E)) :- distinct(T-Cl-E, class_slack(T, Cl, E, _)),
    aggregate_all(set(K), class_slack(T, Cl, E, K), [_, _ | _]).
input_error(two_class_centres(T, Cl)) :- distinct(T-Cl, class_centre(T, Cl, _, _)),
    aggregate_all(set(W-H), class_centre(T, Cl, W, H), [_, _ | _]).
input_error(two_heights(T, S)) :- distinct(T-S, camera_height(T, S, _)),
    aggregate_all(set(H), camera_height(T, S, H), [_, _ | _]).
input_error(two_supports(T, O)) :- distinct(T-O, support(T, O, _)), aggregate_all(set(H), support(T, O, H), [_, _ | _]).
input_error(two_footprints(T, O)) :- distinct(T-O, footprint(T, O, _)),
    aggregate_all(set(R), footprint(T, O, R), [_, _ | _]).
