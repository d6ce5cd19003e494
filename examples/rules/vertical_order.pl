% Vertical-order transitivity across frames: objects do not change height as the camera moves, so
% if A is above B in one frame and B above C in another, A is above C in any frame (same for below).
:- include('vertical_order.decl').

testcase(vert(Q1, Q2, Q3), vertical_order, sc2a) :- pair_query(Q1, obj_dir, T, S1, A, B), A \== B,
    pair_query(Q2, obj_dir, T, S2, B, C), B \== C, A \== C, pair_query(Q3, obj_dir, T, S3, A, C),
    sort([S1, S2, S3], Frames), length(Frames, N), N > 1.
case_query(vert(Q1, Q2, Q3), Q) :- testcase(vert(Q1, Q2, Q3), vertical_order, _), member(Q, [Q1, Q2, Q3]).

vertical_order_sign(Ag, Q, Z) :- dir_answer(Ag, Q, N), query_type(Q, ego), dir_name(ego, N, _, _, Z).

vacuous(Ag, vert(Q1, Q2, Q3)) :- testcase(vert(Q1, Q2, Q3), vertical_order, _),
    vertical_order_sign(Ag, Q1, Z1), vertical_order_sign(Ag, Q2, Z2), Z1-Z2 \== 1-1, Z1-Z2 \== (-1)-(-1).
violates(Ag, vert(Q1, Q2, Q3), height_order_broken) :- testcase(vert(Q1, Q2, Q3), vertical_order, _),
    vertical_order_sign(Ag, Q1, Z), vertical_order_sign(Ag, Q2, Z), Z =\= 0,
    vertical_order_sign(Ag, Q3, Z3), Z3 =\= Z.
