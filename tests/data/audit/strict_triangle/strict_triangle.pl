% A deliberately unsound MR (for the audit's tests): an "otherwise strictly less" clause applied
% to rounded step counts. Unless the answered moves lie on one axis, d13 < d12 + d23 is demanded,
% which rounding breaks: one step diagonally is 1.4 steps, reported as 1; two diagonal steps are
% 2.8 steps, reported as 3, which is not less than 1 + 1.
:- include('strict_triangle.decl').

testcase(strict(Q12, Q23, Q13), strict_triangle, sc1b) :- move_query(Q12, move_dist, T, S1, S2), S1 \== S2,
    move_query(Q23, move_dist, T, S2, S3), S2 \== S3, S1 \== S3, move_query(Q13, move_dist, T, S1, S3),
    once((move_query(_, move_dir, T, S1, S2), move_query(_, move_dir, T, S2, S3))).
case_query(strict(Q12, Q23, Q13), Q) :- testcase(strict(Q12, Q23, Q13), strict_triangle, _), member(Q, [Q12, Q23, Q13]).
strict_dirs(strict(Q12, Q23, _), D12, D23) :- move_query(Q12, _, T, S1, S2), move_query(Q23, _, T, S2, S3),
    move_query(D12, move_dir, T, S1, S2), move_query(D23, move_dir, T, S2, S3).
case_support(C, D) :- strict_dirs(C, D12, D23), member(D, [D12, D23]).
strict_axis(N) :- dir_name(move, N, X, Y, Z), abs(X) + abs(Y) + abs(Z) =:= 1.
strict_collinear(Ag, C) :- strict_dirs(C, D12, D23), move_answer(Ag, D12, move(N, none)),
    move_answer(Ag, D23, move(N2, none)), strict_axis(N), strict_axis(N2).
violates(Ag, strict(Q12, Q23, Q13), not_strictly_shorter) :- testcase(strict(Q12, Q23, Q13), strict_triangle, _),
    mag_answer(Ag, Q12, A), mag_answer(Ag, Q23, B), mag_answer(Ag, Q13, D), D >= A + B,
    \+ strict_collinear(Ag, strict(Q12, Q23, Q13)).
