% MR3 non-contradiction: the same question asked in two surface forms cannot get two different
% answers (distances may differ by no more than the same-distance tolerance).
:- include('mr3_noncontradiction.decl').

testcase(mr3(Q1, Q2), mr3, SC) :- query(Q1, K), query_by_content(K, Q2), Q1 @< Q2, query_sc(Q1, SC).
case_query(mr3(Q1, Q2), Q) :- stored_case(mr3(Q1, Q2), mr3, _), member(Q, [Q1, Q2]).

% Two directions or two moves that differ. An `invalid` answer is left out: the case then counts as
% invalid, whatever else it holds (as in mr3_noncontradiction.lp).
violates(Ag, mr3(Q1, Q2), contradiction) :- stored_case(mr3(Q1, Q2), mr3, _), query_type(Q1, Ty),
    \+ magnitude(Ty), answer(Ag, Q1, V1), answer(Ag, Q2, V2), V1 \== invalid, V2 \== invalid,
    answer_fits(Q1, V1), answer_fits(Q2, V2), V1 \== V2.
violates(Ag, mr3(Q1, Q2), contradiction) :- stored_case(mr3(Q1, Q2), mr3, _), query_type(Q1, Ty),
    mag_answer(Ag, Q1, D1), mag_answer(Ag, Q2, D2), tolerance(same, Ty, Tol), abs(D1 - D2) > Tol.
