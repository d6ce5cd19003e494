% A redundant MR (for the audit's tests): symmetry of map directions, which MR2 already checks.
:- include('map_symmetry.decl').

testcase(msym(Q1, Q2), map_symmetry, sc4a) :- pair_query(Q1, map_dir, T, S, A, B), pair_query(Q2, map_dir, T, S, B, A),
    Q1 @< Q2.
case_query(msym(Q1, Q2), Q) :- testcase(msym(Q1, Q2), map_symmetry, _), member(Q, [Q1, Q2]).
violates(Ag, msym(Q1, Q2), not_inverse) :- testcase(msym(Q1, Q2), map_symmetry, _),
    dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), \+ inverse(map, N1, N2).
