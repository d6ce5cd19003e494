% The Prolog side of `metalogic check`: loads rule files and fact files, derives test cases and
% verdicts in phases (storing each phase as plain facts so later phases use indexed lookups), and
% writes every result as one canonical term per line, printed exactly as clingo prints terms.

:- use_module(library(solution_sequences)).
:- use_module(library(aggregate)).
:- use_module(library(lists)).

% Hooks that rule files (core and MR files) add clauses to.
:- multifile testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3, param_scale/2,
             mr/1, mr_name/2, mr_law/2, mr_serves/2, mr_set/2, param_default/3.
:- dynamic testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3, param_scale/2,
           mr/1, mr_name/2, mr_law/2, mr_serves/2, mr_set/2, param_default/3.
:- discontiguous testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3.

% Tables of the phases. A test case is a compound term, and SWI-Prolog indexes a compound argument
% by its name and arity only, so a lookup of one case would scan every case of its MR. Each table
% is therefore stored under the case's term_hash/2 as its first argument (an integer, indexed
% exactly); the accessors below hash a given case, or enumerate when the case is unbound.
:- dynamic tc_h/4, cq_h/3, cs_h/3, app_h/3, inv_h/3, vr_h/4, viol_h/3, param_override/2.

ml_key(C, H) :- ( ground(C) -> term_hash(C, H) ; true ).
tc(C, MR, SC) :- ml_key(C, H), tc_h(H, C, MR, SC).
cq(C, Q) :- ml_key(C, H), cq_h(H, C, Q).
cs(C, Q) :- ml_key(C, H), cs_h(H, C, Q).
app(Ag, C) :- ml_key(C, H), app_h(H, Ag, C).
inv(Ag, C) :- ml_key(C, H), inv_h(H, Ag, C).
vr(Ag, C, R) :- ml_key(C, H), vr_h(H, Ag, C, R).
viol(Ag, C) :- ml_key(C, H), viol_h(H, Ag, C).
ml_store(Table, C, Args) :- term_hash(C, H), T =.. [Table, H|Args], assertz(T).

violated(Ag, C) :- viol(Ag, C).

%% ml_forall_set(?Template, :Goal, :Action): Action once for each distinct Template of Goal's
%% solutions. Collecting and sorting is much cheaper on large sets than distinct/2's hash table.
ml_forall_set(Template, Goal, Action) :-
    findall(Template, Goal, All), sort(All, Set), forall(member(Template, Set), Action).

%% ml_declare_facts(+Indicators): the fact predicates of the schema, dynamic so that a rule asking
%% for a predicate no facts file uses simply fails.
ml_declare_facts(Indicators) :- forall(member(PI, Indicators), dynamic(user:PI)).

%% ml_reset(+Indicators): forget the facts of the last run and all derived tables, including the
%% tables of the tabled helpers (algebra.pl, observe.pl, some MRs), which depend on the facts.
ml_reset(Indicators) :-
    abolish_all_tables,
    forall(member(Name/Arity, Indicators), (functor(H, Name, Arity), retractall(user:H))),
    retractall(param_override(_, _)),
    retractall(tc_h(_, _, _, _)), retractall(cq_h(_, _, _)), retractall(cs_h(_, _, _)),
    retractall(app_h(_, _, _)), retractall(inv_h(_, _, _)), retractall(vr_h(_, _, _, _)),
    retractall(viol_h(_, _, _)),
    retractall(ml_agent(_)), ml_forget_queries, ml_forget_scores, ml_forget_detail.

%% ml_load_facts(+File): add the ground facts of a file the Python reader has already validated.
%% Terms are read as data (double-quoted text is a string) and asserted; nothing is called.
ml_load_facts(File) :-
    setup_call_cleanup(open(File, read, S, [encoding(utf8)]), ml_read_facts(S), close(S)).
ml_read_facts(S) :-
    read_term(S, T, [double_quotes(string), var_prefix(false)]),
    (   T == end_of_file -> true
    ;   ground(T), T \= (_ :- _), T \= (:- _) -> assertz(user:T), ml_read_facts(S)
    ;   throw(error(not_a_fact(T), _))
    ).

%% ml_load_rules(+File, -Messages): load a rule file, returning the warnings and errors it raised
%% as "kind|text" strings (an empty list means it loaded cleanly). Rule files are compiled with
%% optimise(true), which compiles arithmetic inline (about twice as fast for the MRs that read
%% boxes); the tables of tabled helpers are dropped whenever the rules change.
:- dynamic ml_collecting/0, ml_message/2.
user:message_hook(Term, Kind, Lines) :-
    ml_collecting, memberchk(Kind, [error, warning]),
    catch(with_output_to(string(Body), print_message_lines(current_output, '', Lines)), _, Body = "?"),
    (   source_location(File, Line), \+ sub_string(Body, _, _, _, File)
    ->  format(string(Text), "~w:~w: ~w", [File, Line, Body])
    ;   Text = Body
    ),
    assertz(ml_message(Kind, Text)),
    Term \== none.    % succeed: the message is reported by metalogic, not printed here
ml_load_rules(File, Messages) :-
    abolish_all_tables,
    retractall(ml_message(_, _)),
    setup_call_cleanup(assertz(ml_collecting),
                       catch(load_files(user:File, [if(true), optimise(true)]), E, print_message(error, E)),
                       retractall(ml_collecting)),
    findall(M, (ml_message(K, T), format(string(M), "~w|~w", [K, T])), Messages).

%% ml_unload_rules(+File)
ml_unload_rules(File) :- abolish_all_tables, unload_file(File).

%% ml_run(+OutFile, +Detail): derive the results and write them; Detail = false leaves out what only
%% `check --out` writes (the rows of test cases and violations, and detail.pl: explanations, counts
%% per trajectory, object and answer).
ml_run(Out, Detail) :-
    ml_store_agents,
    ml_store_queries,
    ml_store_cases,
    ml_store_verdicts,
    ml_store_scores,
    setup_call_cleanup(open(Out, write, S, [encoding(utf8)]), ml_emit_all(S, Detail), close(S)).

% Each phase walks the distinct cases and collects what belongs to one case in a small sorted
% list: far cheaper than a set of all pairs of the run (one large list, or distinct/2's hash table).
ml_store_cases :-
    ml_forall_set(C-MR-SC, testcase(C, MR, SC), ml_store(tc_h, C, [C, MR, SC])),
    ml_forall_set(C, tc(C, _, _), ml_store_case_queries(C)).
ml_store_case_queries(C) :-
    ml_forall_set(Q, case_query(C, Q), ml_store(cq_h, C, [C, Q])),
    ml_forall_set(Q, case_support(C, Q), ml_store(cs_h, C, [C, Q])).

ml_store_verdicts :- ml_forall_set(C, tc(C, _, _), ml_store_case_verdicts(C)).
ml_store_case_verdicts(C) :-
    findall(Ag, touched(Ag, C), Ags0), sort(Ags0, Ags),
    forall(( member(Ag, Ags), applicable(Ag, C) ), ml_store_verdict(Ag, C)).
ml_store_verdict(Ag, C) :-
    ml_store(app_h, C, [Ag, C]),
    ( invalid_in(Ag, C) -> ml_store(inv_h, C, [Ag, C]) ; true ),
    findall(R, case_violation(Ag, C, R), Rs0), sort(Rs0, Rs),
    forall(member(R, Rs), ml_store(vr_h, C, [Ag, C, R])),
    ( Rs == [] -> true ; ml_store(viol_h, C, [Ag, C]) ).

ml_emit_all(S, Detail) :-
    ( Detail == true -> ml_emit_rows(S) ; true ),
    case_count(NC), ml_emit(S, case_count(NC)),
    forall(violation_count(Ag, NV), ml_emit(S, violation_count(Ag, NV))),
    forall(score(Ag, SC, N, V), ml_emit(S, score(Ag, SC, N, V))),
    forall(score_pooled(Ag, SC, N, V), ml_emit(S, score_pooled(Ag, SC, N, V))),
    forall(score_set(Ag, SC, K, N, V), ml_emit(S, score_set(Ag, SC, K, N, V))),
    forall(score_from(Ag, SC, K), ml_emit(S, score_from(Ag, SC, K))),
    forall(score_mr(Ag, SC, MR, N, V), ml_emit(S, score_mr(Ag, SC, MR, N, V))),
    forall(invalid_cases(Ag, SC, N), ml_emit(S, invalid_cases(Ag, SC, N))),
    ( Detail == true -> ml_emit_detail(S) ; true ),
    ml_forall_set(E, input_error(E), ml_emit(S, input_error(E))),
    ml_forall_set(E, rule_error(E), ml_emit(S, rule_error(E))).

% The rows of test cases and violations: written by `check --out`, counted otherwise.
ml_emit_rows(S) :-
    forall(tc(C, MR, SC), ml_emit(S, testcase(C, MR, SC))),
    forall((vr(Ag, C, R), tc(C, MR, SC)), ml_emit(S, violation(Ag, C, MR, SC, R))).

ml_emit_detail(S) :-
    ml_store_detail,
    forall(score_traj(Ag, T, N, V), ml_emit(S, score_traj(Ag, T, N, V))),
    forall(score_object(Ag, T, O, N, V), ml_emit(S, score_object(Ag, T, O, N, V))),
    forall(query_score(Ag, Q, N, V), ml_emit(S, query_score(Ag, Q, N, V))),
    forall(viol(Ag, C), ml_forall_set(F, explain_fact(Ag, C, F), ml_emit(S, explain(Ag, C, F)))).

ml_emit(S, T) :- ml_write(S, T), nl(S).

%% ml_write(+Stream, +Term): print a ground term the way clingo prints symbols.
ml_write(S, T) :- string(T), !, string_codes(T, Cs), put_char(S, '"'), ml_write_codes(S, Cs), put_char(S, '"').
ml_write(S, T) :- atom(T), !, write(S, T).
ml_write(S, T) :- integer(T), !, write(S, T).
ml_write(S, T) :- compound(T), compound_name_arguments(T, F, Args), write(S, F), put_char(S, '('),
    ml_write_args(S, Args), put_char(S, ')').
ml_write_args(S, [A]) :- !, ml_write(S, A).
ml_write_args(S, [A|As]) :- ml_write(S, A), put_char(S, ','), ml_write_args(S, As).
ml_write_codes(_, []).
ml_write_codes(S, [C|Cs]) :- ml_write_code(S, C), ml_write_codes(S, Cs).
ml_write_code(S, 0'") :- !, write(S, '\\"').
ml_write_code(S, 0'\\) :- !, write(S, '\\\\').
ml_write_code(S, 0'\n) :- !, write(S, '\\n').
ml_write_code(S, C) :- put_code(S, C).

%% ml_query_lines(+Goal, +Template, -Lines): every distinct answer of a goal as canonical text.
ml_query_lines(Goal, Template, Lines) :-
    findall(L, (distinct(Template, Goal), with_output_to(string(L), ml_write(current_output, Template))), Lines).
