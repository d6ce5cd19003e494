% MR14 still move: a move without translation covers no distance, so a move_dir answer whose
% translation is `none` needs a move_dist answer of 0 steps over the same two states.
:- include('mr14_still_move.decl').

testcase(mr14(Qd, Qs), mr14, sc1a) :- move_query(Qd, move_dir, T, S1, S2), move_query(Qs, move_dist, T, S1, S2),
    step_mm(T, Mm), Mm > 100.
testcase(mr14s(Qd, Qs), mr14, sc1b) :- testcase(mr14(Qd, Qs), mr14, sc1a).
mr14_of(mr14(Qd, Qs), Qd, Qs).
mr14_of(mr14s(Qd, Qs), Qd, Qs).
case_query(C, X) :- mr14_of(C, Qd, Qs), member(X, [Qd, Qs]).
violates(Ag, mr14(Qd, Qs), distance_without_move) :- mr14_moveless(Ag, Qd, Qs).
violates(Ag, mr14s(Qd, Qs), distance_without_move) :- mr14_moveless(Ag, Qd, Qs).
mr14_moveless(Ag, Qd, Qs) :- move_answer(Ag, Qd, move(none, _)),
    mag_answer(Ag, Qs, N), N > 0.
