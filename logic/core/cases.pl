% Test cases and violations, common to every MR (the Prolog twin of cases.lp). The driver first
% stores each distinct test case as tc/3 and its queries as cq/2 and cs/2, then asks these rules.

% The agents are stored once per run by the driver (ml_store_agents/0): asking answer/3 for them at
% every use would scan all answers each time.
:- dynamic ml_agent/1.
agent(Ag) :- ml_agent(Ag).
ml_store_agents :- ml_forall_set(Ag, answer(Ag, _, _), assertz(ml_agent(Ag))).

touched(Ag, C) :- cq(C, Q), answer(Ag, Q, _).
unanswered(Ag, C) :- cq(C, Q), \+ answer(Ag, Q, _), !.
applicable(Ag, C) :- \+ unanswered(Ag, C), \+ vacuous(Ag, C).

invalid_in(Ag, C) :- cq(C, Q), answer(Ag, Q, invalid), !.
case_violation(Ag, C, invalid_answer) :- invalid_in(Ag, C), !.
case_violation(Ag, C, R) :- violates(Ag, C, R).

% A case id belongs to one MR within a capability, as in cases.lp.
rule_error(case_in_two_mrs(C, SC, M1, M2)) :- tc(C, M1, SC), tc(C, M2, SC), M1 @< M2.
