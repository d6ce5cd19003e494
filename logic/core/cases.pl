% Test cases and violations, common to every MR (the Prolog twin of cases.lp). The driver first
% stores each distinct test case (numbered: tc_i/3) and its queries (cq_i/2, cs_i/2), then asks
% these rules.

% The agents are stored once per run by the driver (ml_store_agents/0): asking answer/3 for them at
% every use would scan all answers each time.
:- dynamic ml_agent/1.
agent(Ag) :- ml_agent(Ag).
ml_store_agents :- ml_forall_set(Ag, answer(Ag, _, _), assertz(ml_agent(Ag))).

% A case is given by its number I in the driver's tables, and by its term C where an MR's rules
% are asked.
touched(Ag, I) :- cq_i(I, Q), answer(Ag, Q, _).
unanswered(Ag, I) :- cq_i(I, Q), \+ answer(Ag, Q, _), !.
applicable(Ag, I, C) :- \+ unanswered(Ag, I), \+ vacuous(Ag, C).

% The reasons an applicable case is violated: an unusable answer (`invalid`) and nothing else, or
% whatever the MR's rules find (Invalid: whether invalid_in/2 holds, asked once by the driver).
invalid_in(Ag, I) :- cq_i(I, Q), answer(Ag, Q, invalid), !.
case_violation(true, _, _, invalid_answer).
case_violation(false, Ag, C, R) :- violates(Ag, C, R).

% A case id belongs to one MR within a capability, as in cases.lp (conflicts.pl adds rule errors too).
:- multifile rule_error/1.
rule_error(case_in_two_mrs(C, SC, M1, M2)) :- tc_i(I, M1, SC), tc_i(I, M2, SC), M1 @< M2, ml_case(I, C).

% stored_case(C, MR, SC): a test case the driver has stored (testcase/3, derived once): what the MRs'
% own rules check a given case against, instead of deriving it again.
stored_case(C, MR, SC) :- ml_case_id(C, I), tc_i(I, MR, SC).
% stored_case_query(C, Q): a query of a stored case (case_query/2, derived once).
stored_case_query(C, Q) :- ml_case_id(C, I), cq_i(I, Q).
