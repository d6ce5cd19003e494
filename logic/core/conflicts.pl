% What blame starts from (the Prolog twin of conflicts.lp): the conflict sets of each violated case,
% the evidence for each suspect answer and the tested answers per capability, read from the
% driver's tables of numbered cases (cq_i/2, cs_i/2, viol_i/2, inv_i/2, off_i/2).

:- multifile conflict/4, rule_error/1.
:- dynamic conflict/4.

case_read_i(I, Q) :- cq_i(I, Q).
case_read_i(I, Q) :- cs_i(I, Q).

%% conflict_set(?Ag, -C, -K, -Q): as in conflicts.lp, case by case.
conflict_set(Ag, C, K, Q) :- viol_i(Ag, I), ml_case(I, C), conflict_set_i(Ag, I, C, K, Q).
conflict_set_i(Ag, I, _, invalid, Q) :- inv_i(Ag, I), !, cq_i(I, Q), answer(Ag, Q, invalid).
conflict_set_i(Ag, _, C, K, Q) :- conflict(Ag, C, _, _), !, conflict(Ag, C, K, Q).
conflict_set_i(Ag, I, _, all, Q) :- findall(Q0, ( case_read_i(I, Q0), answer(Ag, Q0, _) ), Qs0), sort(Qs0, Qs), member(Q, Qs).

rule_error(conflict_outside_case(C, Q)) :- conflict(_, C, _, Q), \+ ( ml_case_id(C, I), case_read_i(I, Q) ).

%% ml_conflict_rows(+Ag, -Rows): the agent's distinct conflict_set/4 rows.
ml_conflict_rows(Ag, Rows) :- findall(conflict_set(Ag, C, K, Q), conflict_set(Ag, C, K, Q), Rows0), sort(Rows0, Rows).

%% answer_held(+Ag, +Q, -SC, -H): the applicable cases that read suspect answer Q and hold.
answer_held(Ag, Q, SC, H) :-
    query_sc(Q, SC),
    findall(I, case_read_i(I, Q), Is0), sort(Is0, Is),
    aggregate_all(count, ( member(I, Is), \+ off_i(Ag, I), \+ viol_i(Ag, I) ), H).

%% answer_mr(+Ag, +Q, -MR, -H, -V): answer_held/4 by MR, with the cases that broke (V).
answer_mr(Ag, Q, MR, H, V) :-
    findall(MR0-I, ( case_read_i(I, Q), tc_i(I, MR0, _) ), Ps0), sort(Ps0, Ps),
    findall(MR0, member(MR0-_, Ps), MRs0), sort(MRs0, MRs), member(MR, MRs),
    aggregate_all(count, ( member(MR-I, Ps), \+ off_i(Ag, I), \+ viol_i(Ag, I) ), H),
    aggregate_all(count, ( member(MR-I, Ps), viol_i(Ag, I) ), V).

%% tested_answers(?Ag, ?SC, -N): the agent's answers of capability SC that an applicable case of an MR
%% that checks their value reads, less those whose every reading case broke for another answer's
%% sake (conflicts.lp).
tested_answers(Ag, SC, N) :- agent(Ag), ml_tested_counts(Ag, Counts), capability(SC, _), ml_count(Counts, SC, N).
ml_tested_counts(Ag, Counts) :-
    ml_explained(Ag, Ex),
    ml_key_counts(SC, ( answer(Ag, Q, _), ml_tested(Ag, Q, Ex), query_sc(Q, SC) ), Counts).
ml_tested(Ag, Q, Ex) :- once(( case_read_i(I, Q), ml_checked_i(I), \+ off_i(Ag, I) )), \+ ord_memberchk(Q, Ex).

%% ml_checked_i(+I): case I checks the answers it reads against something other than answers of
%% their own kind (conflicts.lp): its MR compares them with what the frames show (mr_set anchored),
%% or its questions span two capabilities; or only the paper's MRs run.
ml_checked_i(I) :- tc_i(I, MR, _), mr_set(MR, anchored), !.
ml_checked_i(I) :- cq_i(I, Q1), query_sc(Q1, S1), cq_i(I, Q2), query_sc(Q2, S2), S1 \== S2, !.
ml_checked_i(_) :- \+ ( mr(MR), \+ mr_set(MR, paper) ).

%% ml_untested_suspects(+Ag, +Qs, -Us): the answers Qs (the agent's answers in conflict sets) that are
%% not tested (untested_suspect/2 in conflicts.lp).
ml_untested_suspects(Ag, Qs, Us) :- ml_explained(Ag, Ex), findall(Q, ( member(Q, Qs), \+ ml_tested(Ag, Q, Ex) ), Us).

%% ml_explained(+Ag, -Qs): the agent's answers that no case reading them holds and whose every
%% conflict set is met, a set of two or more with an answer that is a set alone (sorted).
ml_explained(Ag, Qs) :-
    ml_conflict_rows(Ag, Rows),
    findall((C-K)-Q, member(conflict_set(_, C, K, Q), Rows), Pairs0), sort(Pairs0, Pairs),
    group_pairs_by_key(Pairs, Sets),
    findall(Q, member(_-[Q], Sets), Sure0), sort(Sure0, Sure),
    findall(Q, ( member(_-Set, Sets), \+ ml_met(Set, Sure), member(Q, Set) ), Told0), sort(Told0, Told),
    findall(Q, member(_-Q, Pairs), All0), sort(All0, All),
    ord_subtract(All, Told, Cands),
    include(ml_held_nowhere(Ag), Cands, Qs).
ml_met(Set, Sure) :- Set = [_, _ | _], member(Q, Set), ord_memberchk(Q, Sure), !.
ml_held_nowhere(Ag, Q) :- answer_held(Ag, Q, _, 0).
