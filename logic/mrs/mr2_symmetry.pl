% MR2 symmetry: the relation asked the other way round is the inverse (a move back undoes the turn);
% a distance asked the other way round is the same distance.
:- include('mr2_symmetry.decl').

testcase(mr2(Q1, Q2), mr2, SC) :- pair_query(Q1, K, T, S, A, B), A \== B, pair_query(Q2, K, T, S, B, A),
    Q1 @< Q2, query_sc(Q1, SC).
testcase(mr2(Q1, Q2), mr2, SC) :- move_query(Q1, K, T, S1, S2), S1 \== S2, move_query(Q2, K, T, S2, S1),
    Q1 @< Q2, query_sc(Q1, SC).
case_query(mr2(Q1, Q2), Q) :- stored_case(mr2(Q1, Q2), mr2, _), member(Q, [Q1, Q2]).

violates(Ag, mr2(Q1, Q2), not_inverse) :- stored_case(mr2(Q1, Q2), mr2, _), query_type(Q1, Ty),
    dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), \+ inverse(Ty, N1, N2).
violates(Ag, mr2(Q1, Q2), not_inverse) :- stored_case(mr2(Q1, Q2), mr2, _),
    move_answer(Ag, Q1, M1), move_answer(Ag, Q2, M2), \+ move_inverse(M1, M2).
violates(Ag, mr2(Q1, Q2), distance_differs) :- stored_case(mr2(Q1, Q2), mr2, _), query_type(Q1, Ty),
    mag_answer(Ag, Q1, D1), mag_answer(Ag, Q2, D2), tolerance(same, Ty, Tol), abs(D1 - D2) > Tol.
