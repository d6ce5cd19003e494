% MR1 transitivity: the answered relation from 1 to 3 must lie in the composition of the answers
% from 1 to 2 and from 2 to 3 (objects in one frame; moves over three states, turns included).
:- include('mr1_transitivity.decl').

% Objects A, B, C in one frame, asked as one kind of direction query (SC2-a egocentric, SC4-a map).
testcase(mr1(Q12, Q23, Q13), mr1, SC) :- pair_query(Q12, K, T, S, A, B), query_type(Q12, Ty), once(dir_value(Ty, _)),
    A \== B, pair_query(Q23, K, T, S, B, C), B \== C, A \== C, pair_query(Q13, K, T, S, A, C),
    query_sc(Q12, SC).
case_query(mr1(Q12, Q23, Q13), Q) :- stored_case(mr1(Q12, Q23, Q13), mr1, _), member(Q, [Q12, Q23, Q13]).
vacuous(Ag, mr1(Q12, Q23, Q13)) :- stored_case(mr1(Q12, Q23, Q13), mr1, _), query_type(Q12, Ty),
    dir_answer(Ag, Q12, N12), dir_answer(Ag, Q23, N23), universal(Ty, N12, N23).
violates(Ag, mr1(Q12, Q23, Q13), outside_composition) :- stored_case(mr1(Q12, Q23, Q13), mr1, _),
    query_type(Q12, Ty), dir_answer(Ag, Q12, N12), dir_answer(Ag, Q23, N23), dir_answer(Ag, Q13, N13),
    \+ compose(Ty, N12, N23, N13), \+ universal(Ty, N12, N23).

% Moves over states S1, S2, S3 (SC1-a).
testcase(mr1(Q12, Q23, Q13), mr1, sc1a) :- move_query(Q12, move_dir, T, S1, S2), S1 \== S2,
    move_query(Q23, move_dir, T, S2, S3), S2 \== S3, S1 \== S3, move_query(Q13, move_dir, T, S1, S3).
violates(Ag, mr1(Q12, Q23, Q13), outside_composition) :- stored_case(mr1(Q12, Q23, Q13), mr1, sc1a),
    move_answer(Ag, Q12, M12), move_answer(Ag, Q23, M23), move_answer(Ag, Q13, M13),
    \+ move_compose(M12, M23, M13).

% Viewpoint form (SC4-a): the map of A and B seen at S2 is the map seen at S1 turned back by the
% turn the agent itself answered for the move from S1 to S2.
testcase(mr1(view, Q1, Q2, Qm), mr1, sc4a) :- pair_query(Q1, map_dir, T, S1, A, B),
    pair_query(Q2, map_dir, T, S2, A, B), S1 \== S2, move_query(Qm, move_dir, T, S1, S2).
case_query(mr1(view, Q1, Q2, Qm), Q) :- stored_case(mr1(view, Q1, Q2, Qm), mr1, _), member(Q, [Q1, Q2, Qm]).
violates(Ag, mr1(view, Q1, Q2, Qm), map_not_turned) :- stored_case(mr1(view, Q1, Q2, Qm), mr1, _),
    dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), move_answer(Ag, Qm, move(_, R)), turn(R, Q),
    Back is (4 - Q) mod 4, \+ rotate(map, Back, N1, N2).
