% MR4 triangle inequality: |d12 - d23| <= d13 <= d12 + d23 (with rounding slack); where the agent's own
% move answers put the three states on one axis, d13 is exactly the sum or the difference.
:- include('mr4_triangle.decl').

testcase(mr4(Q12, Q23, Q13), mr4, sc1b) :- move_query(Q12, move_dist, T, S1, S2), S1 \== S2,
    move_query(Q23, move_dist, T, S2, S3), S2 \== S3, S1 \== S3, move_query(Q13, move_dist, T, S1, S3).
case_support(mr4(Q12, Q23, Q13), D) :- stored_case(mr4(Q12, Q23, Q13), mr4, sc1b),
    move_query(Q12, _, T, S1, S2), move_query(Q23, _, T, S2, S3),
    move_query(D12, move_dir, T, S1, S2), move_query(D23, move_dir, T, S2, S3), member(D, [D12, D23]).
testcase(mr4(Q12, Q23, Q13), mr4, SC) :- pair_query(Q12, K, T, S, A, B), query_type(Q12, mm), A \== B,
    pair_query(Q23, K, T, S, B, C), B \== C, A \== C, pair_query(Q13, K, T, S, A, C), query_sc(Q12, SC).
testcase(mr4(Qa, Qb, Qab), mr4, sc4b) :- object_query(Qa, ego_dist, T, S, A), object_query(Qb, ego_dist, T, S, B),
    A \== B, pair_query(Qab, map_dist, T, S, A, B).
case_query(mr4(Q12, Q23, Q13), Q) :- stored_case(mr4(Q12, Q23, Q13), mr4, _), member(Q, [Q12, Q23, Q13]).

% Each case shape has its own violates/3 clause, so that SWI-Prolog finds a case's clauses by the
% case's name (a clause whose case is a variable would be tried for every case of every MR).
:- discontiguous mr4_violates/3.
violates(Ag, mr4(Q12, Q23, Q13), R) :- mr4_violates(Ag, mr4(Q12, Q23, Q13), R).

legs(Ag, mr4(Q12, Q23, Q13), D12, D23, D13, Tol) :- stored_case(mr4(Q12, Q23, Q13), mr4, _),
    mag_answer(Ag, Q12, D12), mag_answer(Ag, Q23, D23), mag_answer(Ag, Q13, D13),
    query_type(Q12, Ty), tolerance(triangle, Ty, Tol).
mr4_violates(Ag, C, longer_than_sum) :- legs(Ag, C, D12, D23, D13, Tol), D13 > D12 + D23 + Tol.
mr4_violates(Ag, C, shorter_than_difference) :- legs(Ag, C, D12, D23, D13, Tol), D13 + Tol < abs(D12 - D23).

axis_name(N) :- dir_name(move, N, X, Y, Z), abs(X) + abs(Y) + abs(Z) =:= 1.
leg_dirs(Ag, C, T12, T23r) :- C = mr4(Q12, Q23, _),
    move_query(Q12, _, T, S1, S2), move_query(D12, move_dir, T, S1, S2),
    move_query(Q23, _, T, S2, S3), move_query(D23, move_dir, T, S2, S3),
    move_answer(Ag, D12, move(T12, R12)), move_answer(Ag, D23, move(T23, _)),
    turn(R12, Q), rotate(move, Q, T23, T23r).
% Whole steps along one axis are exact, so here the answers must match to the same-distance tolerance.
leg_type(C, Ty) :- C = mr4(Q12, _, _), query_type(Q12, Ty).
mr4_violates(Ag, C, not_sum) :- legs(Ag, C, D12, D23, D13, _), leg_dirs(Ag, C, N, N), axis_name(N),
    leg_type(C, Ty), tolerance(same, Ty, Tol), abs(D13 - (D12 + D23)) > Tol.
mr4_violates(Ag, C, not_difference) :- legs(Ag, C, D12, D23, D13, _), leg_dirs(Ag, C, N, M), axis_name(N),
    inverse(move, N, M), leg_type(C, Ty), tolerance(same, Ty, Tol), abs(D13 - abs(D12 - D23)) > Tol.
