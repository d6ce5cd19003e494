% MR5 as first written, without the whole-pixel guard (for the audit's tests): small boxes make a
% truthful agent's depths look inconsistent, and the audit must find such a world.
:- include('raw_size_depth.decl').

raw_height(T, S, O, H) :- detection(T, S, O, _, _, _, Y1, _, Y2), \+ truncated(T, S, O), Y2 >= Y1, H is Y2 - Y1 + 1.
testcase(raw5(Q1, Q2), mr5_raw, sc3b) :- object_query(Q1, depth, T, S1, O), object_query(Q2, depth, T, S2, O),
    S1 @< S2, once(raw_height(T, S1, O, _)), once(raw_height(T, S2, O, _)).
case_query(raw5(Q1, Q2), Q) :- testcase(raw5(Q1, Q2), mr5_raw, _), member(Q, [Q1, Q2]).
raw_case(Ag, raw5(Q1, Q2), H1, H2, D1, D2, E) :- testcase(raw5(Q1, Q2), mr5_raw, _),
    object_query(Q1, _, T, S1, O), object_query(Q2, _, T, S2, O), raw_height(T, S1, O, H1), raw_height(T, S2, O, H2),
    mag_answer(Ag, Q1, D1), mag_answer(Ag, Q2, D2), D1 > 0, D2 > 0, param(eps, E).
violates(Ag, C, size_depth_mismatch) :- raw_case(Ag, C, H1, H2, D1, D2, E), \+ frac_lt(H1, H2, 1000 * D2 + E * D1, 1000 * D1).
violates(Ag, C, size_depth_mismatch) :- raw_case(Ag, C, H1, H2, D1, D2, E), 1000 * D2 >= E * D1,
    \+ frac_lt(1000 * D2 - E * D1, 1000 * D1, H1, H2).
