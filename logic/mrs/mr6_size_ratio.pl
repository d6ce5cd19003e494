% MR6 size-ratio consistency: real sizes do not change between frames, so the ratio of two objects'
% answered sizes agrees across frames: |H11/H12 - H21/H22| < delta.
:- include('mr6_size_ratio.decl').

testcase(mr6(Q11, Q12, Q21, Q22), mr6, sc3a) :- object_query(Q11, size, T, S1, A), object_query(Q12, size, T, S1, B),
    A @< B, object_query(Q21, size, T, S2, A), S1 @< S2, object_query(Q22, size, T, S2, B).
case_query(mr6(Q11, Q12, Q21, Q22), Q) :- stored_case(mr6(Q11, Q12, Q21, Q22), mr6, _), member(Q, [Q11, Q12, Q21, Q22]).

% violates/3 by the case's shape (indexed; see mr4_triangle.pl).
violates(Ag, mr6(Q11, Q12, Q21, Q22), R) :- mr6_violates(Ag, mr6(Q11, Q12, Q21, Q22), R).

mr6_case(Ag, C, H11, H12, H21, H22, E) :- C = mr6(Q11, Q12, Q21, Q22), stored_case(C, mr6, _),
    mag_answer(Ag, Q11, H11), mag_answer(Ag, Q12, H12), mag_answer(Ag, Q21, H21), mag_answer(Ag, Q22, H22),
    param(delta, E).
ok_sizes(Ag, C) :- mr6_case(Ag, C, H11, H12, H21, H22, _), H11 > 0, H12 > 0, H21 > 0, H22 > 0.
mr6_violates(Ag, C, zero_size) :- mr6_case(Ag, C, _, _, _, _, _), \+ ok_sizes(Ag, C).
mr6_violates(Ag, C, size_ratio_mismatch) :- mr6_case(Ag, C, H11, H12, H21, H22, E), ok_sizes(Ag, C),
    \+ frac_lt(H11, H12, 1000 * H21 + E * H22, 1000 * H22).
mr6_violates(Ag, C, size_ratio_mismatch) :- mr6_case(Ag, C, H11, H12, H21, H22, E), ok_sizes(Ag, C),
    1000 * H21 >= E * H22, \+ frac_lt(1000 * H21 - E * H22, 1000 * H22, H11, H12).
