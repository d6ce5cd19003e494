% The Prolog side of `metalogic check`: loads rule files and fact files, derives test cases and
% verdicts in phases (storing each phase as plain facts so later phases use indexed lookups), and
% writes every result as one canonical term per line, printed exactly as clingo prints terms.

:- use_module(library(solution_sequences)).
:- use_module(library(aggregate)).
:- use_module(library(lists)).

% Atom and clause garbage collection in a thread of its own, as the `swipl` program does. Prolog
% embedded in Python (pyswip) starts with this flag false, and then the thread that erased the
% clauses collects them itself: emptying the big tables after a run (ml_reset/1) took 0.8 s that
% way at 100k answers, and takes 0.15 s with the collector thread. (No process forks with this
% thread running: check's workers come from a fork server that never starts Prolog.)
:- set_prolog_flag(gc_thread, true).

% Hooks that rule files (core and MR files) add clauses to.
:- multifile testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3, param_scale/2,
             mr/1, mr_name/2, mr_law/2, mr_serves/2, mr_set/2, param_default/3.
:- dynamic testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3, param_scale/2,
           mr/1, mr_name/2, mr_law/2, mr_serves/2, mr_set/2, param_default/3.
:- discontiguous testcase/3, case_query/2, case_support/2, violates/3, vacuous/2, explain/3.

% Tables of the phases. Each distinct test case gets a number when the cases are stored
% (ml_case/2), and every later table names the case by that number: an integer is indexed exactly
% and compares and sorts cheaply, where a compound case term is indexed by its name and arity
% only (a lookup of one case would scan every case of its MR). ml_case_h/3 finds a case's number
% from the term, under its term_hash/2.
:- dynamic ml_case/2, ml_case_h/3, tc_i/3, cq_i/2, cs_i/2, app_i/2, off_i/2, inv_i/2, vr_i/3, viol_i/2,
           param_override/2.

% Tables an MR file stores once per run, after the observations and before the cases: a clause
% ml_mr_store(Goal, Indicators) in the file has the driver call Goal then, and ml_reset/1 empty the
% predicates Indicators (dynamic, and defined by Goal's assertions only).
:- multifile ml_mr_store/2.
:- dynamic ml_mr_store/2.

%% ml_case_id(+Case, -I): the number of a stored case.
ml_case_id(C, I) :- term_hash(C, H), ml_case_h(H, C, I).

violated(Ag, C) :- ml_case_id(C, I), viol_i(Ag, I).

%% ml_forall_set(?Template, :Goal, :Action): Action once for each distinct Template of Goal's
%% solutions. Collecting and sorting is much cheaper on large sets than distinct/2's hash table.
ml_forall_set(Template, Goal, Action) :-
    findall(Template, Goal, All), sort(All, Set), forall(member(Template, Set), Action).

%% ml_declare_facts(+Indicators): the fact predicates of the schema, dynamic so that a rule asking
%% for a predicate no facts file uses simply fails.
ml_declare_facts(Indicators) :- forall(member(PI, Indicators), dynamic(user:PI)).

%% ml_reset(+Indicators): forget the facts of the last run and all derived tables, including the
%% tables of the tabled helpers (algebra.pl), the observations stored by observe.pl and the tables
%% MR files store (ml_mr_store/2), which depend on the facts.
ml_reset(Indicators) :-
    abolish_all_tables,
    forall(member(Name/Arity, Indicators), (functor(H, Name, Arity), retractall(user:H))),
    retractall(param_override(_, _)),
    ml_clear([ml_case/2, ml_case_h/3, tc_i/3, cq_i/2, cs_i/2, app_i/2, off_i/2, inv_i/2, vr_i/3, viol_i/2,
              ml_string_text/3, ml_fact_text/3, ml_agent/1]),
    ml_forget_queries, ml_forget_observations, ml_forget_scores, ml_forget_detail,
    forall(ml_mr_store(_, MRTables), ml_clear(MRTables)).

%% ml_clear(+Indicators): empty the driver's own tables (dynamic, and defined nowhere else):
%% abolishing a table and declaring it again frees it at once, several times faster than retracting
%% every clause (the facts, which a rule file might also define, are retracted).

ml_clear(Indicators) :- forall(member(PI, Indicators), ( abolish(user:PI), dynamic(user:PI) )).

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

%% ml_run(+Dir, +Detail): derive the results and write them into the folder Dir, one line each:
%% the test cases, violations, explanations and per-answer counts (the bulk of them) each in a
%% file of their own, NAME.txt, the rest in results.txt, so that the caller finds each predicate's
%% lines without reading every line. Detail = false leaves out what only `check --out` writes (the
%% rows of test cases and violations, and detail.pl: explanations, counts per trajectory, object
%% and answer).
ml_run(Dir, Detail) :-
    ml_store_agents,
    ml_store_queries,
    ml_store_observations,
    forall(ml_mr_store(Store, _), call(Store)),
    ml_store_cases,
    ml_store_verdicts,
    ml_store_scores,
    ml_writing(Dir, results, S, ml_emit_all(Dir, S, Detail)).

%% ml_writing(+Dir, +Name, -Stream, :Goal): Goal with Stream open on Dir/Name.txt.
ml_writing(Dir, Name, S, Goal) :-
    atomic_list_concat([Dir, /, Name, '.txt'], File),
    setup_call_cleanup(open(File, write, S, [encoding(utf8)]), Goal, close(S)).

% Each phase walks the distinct cases and collects what belongs to one case in a small sorted
% list: far cheaper than a set of all pairs of the run (one large list, or distinct/2's hash table).
ml_store_cases :-
    findall(C-MR-SC, testcase(C, MR, SC), Rows0), sort(Rows0, Rows),
    ml_number_cases(Rows, 0, []),
    forall(ml_case(I, C), ml_store_case_queries(I, C)).
% The rows come sorted, so the rows of one case are adjacent (Prev: [] or [the previous case]).
ml_number_cases([], _, _).
ml_number_cases([C-MR-SC|Rows], I0, Prev) :-
    (   Prev = [C0], C0 == C
    ->  I = I0
    ;   I is I0 + 1, term_hash(C, H), assertz(ml_case(I, C)), assertz(ml_case_h(H, C, I))
    ),
    assertz(tc_i(I, MR, SC)),
    ml_number_cases(Rows, I, [C]).
ml_store_case_queries(I, C) :-
    ml_forall_set(Q, case_query(C, Q), assertz(cq_i(I, Q))),
    ml_forall_set(Q, case_support(C, Q), assertz(cs_i(I, Q))).

% Besides the verdicts of the agents a case applies to, the agents it does not apply to are stored
% (off_i/2, few): the counts per group are the group's cases less those (score.pl, detail.pl).
ml_store_verdicts :- findall(Ag, agent(Ag), All), forall(ml_case(I, C), ml_store_case_verdicts(All, I, C)).
ml_store_case_verdicts(All, I, C) :-
    findall(Ag, touched(Ag, I), Ags0), sort(Ags0, Ags),
    findall(Ag, ( member(Ag, Ags), applicable(Ag, I, C) ), Apps),
    forall(member(Ag, Apps), ml_store_verdict(Ag, I, C)),
    forall(( member(Ag, All), \+ memberchk(Ag, Apps) ), assertz(off_i(Ag, I))).
ml_store_verdict(Ag, I, C) :-
    assertz(app_i(Ag, I)),
    ( invalid_in(Ag, I) -> Invalid = true, assertz(inv_i(Ag, I)) ; Invalid = false ),
    findall(R, case_violation(Invalid, Ag, C, R), Rs0), sort(Rs0, Rs),
    forall(member(R, Rs), assertz(vr_i(Ag, I, R))),
    ( Rs == [] -> true ; assertz(viol_i(Ag, I)) ).

ml_emit_all(Dir, S, Detail) :-
    ( Detail == true -> ml_emit_cases(Dir) ; true ),
    case_count(NC), ml_emit(S, case_count(NC)),
    forall(violation_count(Ag, NV), ml_emit(S, violation_count(Ag, NV))),
    forall(score(Ag, SC, N, V), ml_emit(S, score(Ag, SC, N, V))),
    forall(score_pooled(Ag, SC, N, V), ml_emit(S, score_pooled(Ag, SC, N, V))),
    forall(score_set(Ag, SC, K, N, V), ml_emit(S, score_set(Ag, SC, K, N, V))),
    forall(score_from(Ag, SC, K), ml_emit(S, score_from(Ag, SC, K))),
    forall(score_mr(Ag, SC, MR, N, V), ml_emit(S, score_mr(Ag, SC, MR, N, V))),
    forall(invalid_cases(Ag, SC, N), ml_emit(S, invalid_cases(Ag, SC, N))),
    ( Detail == true -> ml_emit_detail(Dir, S) ; true ),
    ml_emit_blame_input(S),
    ml_forall_set(E, input_error(E), ml_emit(S, input_error(E))),
    ml_forall_set(E, rule_error(E), ml_emit(S, rule_error(E))).

% What blame starts from (conflicts.pl): each agent's conflict sets, the evidence for each answer in
% one, and the tested answers per capability.
ml_emit_blame_input(S) :-
    forall(agent(Ag), ( ml_conflict_rows(Ag, Rows),
                        forall(member(conflict_set(A, C, K, Q), Rows), ml_emit(S, conflict_set(A, C, K, Q))),
                        findall(Q, member(conflict_set(_, _, _, Q), Rows), Qs0), sort(Qs0, Qs),
                        forall(( member(Q, Qs), answer_held(Ag, Q, SC, H) ), ml_emit(S, answer_held(Ag, Q, SC, H))),
                        forall(( member(Q, Qs), answer_mr(Ag, Q, MR, H, V) ), ml_emit(S, answer_mr(Ag, Q, MR, H, V))),
                        ml_untested_suspects(Ag, Qs, Us),
                        forall(member(Q, Us), ml_emit(S, untested_suspect(Ag, Q))) )),
    forall(tested_answers(Ag, SC, N), ml_emit(S, tested_answers(Ag, SC, N))).

% What `check --out` writes of each case, the case printed once: its rows, its violations (counted
% otherwise) and the facts behind each violation (detail.pl's explain_fact/4).
ml_emit_cases(Dir) :-
    ml_writing(Dir, testcase, S1, ml_writing(Dir, violation, S2, ml_writing(Dir, explain, S3,
        forall(ml_case(I, C), ml_emit_case(S1-S2-S3, I, C))))).
ml_emit_case(S1-S2-S3, I, C) :-
    ml_text(C, Text), Ct = '$ml_text'(Text),
    ml_emit_testcases(S1, I, Ct), ml_emit_violations(S2, I, Ct), ml_emit_explanations(S3, I, C, Ct).
ml_emit_testcases(S, I, Ct) :- forall(tc_i(I, MR, SC), ml_emit(S, testcase(Ct, MR, SC))).
ml_emit_violations(S, I, Ct) :-
    forall(( vr_i(Ag, I, R), tc_i(I, MR, SC) ), ml_emit(S, violation(Ag, Ct, MR, SC, R))).
% An agent's explanations of one case are written at once, as one string (a write per line would
% cost a stream operation each). Its lines differ in the fact only, so the text before the fact,
% `explain(Ag,Case,`, is made once per agent and case (these lines are the bulk of the output).
% The facts explained are few and each explains many violations (a box or a question those of
% every agent), so each one's text is kept for the run, under its term_hash/2.
:- dynamic ml_fact_text/3.
ml_emit_explanations(S, I, C, Ct) :-
    forall(viol_i(Ag, I), ( findall(F, explain_fact(Ag, I, C, F), Fs0), sort(Fs0, Fs), ml_explain_head(Ag, Ct, Head),
                            ml_explain_pieces(Fs, Head, Ps), atomics_to_string(Ps, X), write(S, X) )).
% ml_explain_head(+Ag, +Ct, -Head): the text of explain(Ag, Ct, F) up to F: the term printed with F
% left open (a variable piece), and the pieces before it joined.
ml_explain_head(Ag, Ct, Head) :-
    ml_pieces(explain(Ag, Ct, '$ml_text'(_)), P0, []), ml_pieces_before_var(P0, Hs), atomics_to_string(Hs, Head).
ml_pieces_before_var([P|_], []) :- var(P), !.
ml_pieces_before_var([P|Ps], [P|Hs]) :- ml_pieces_before_var(Ps, Hs).
ml_explain_pieces([], _, []).
ml_explain_pieces([F|Fs], Head, [Head, X, ')\n'|P]) :- ml_fact_text(F, X), ml_explain_pieces(Fs, Head, P).
ml_fact_text(F, X) :-
    term_hash(F, H),
    (   ml_fact_text(H, F, X0) -> X = X0
    ;   ml_text(F, X), assertz(ml_fact_text(H, F, X))
    ).

ml_emit_detail(Dir, S) :-
    ml_store_detail,
    forall(score_traj(Ag, T, N, V), ml_emit(S, score_traj(Ag, T, N, V))),
    forall(score_object(Ag, T, O, N, V), ml_emit(S, score_object(Ag, T, O, N, V))),
    ml_writing(Dir, query_score, Sq, ml_emit_query_scores(Sq)).
% Many lines, written at once per agent (as the explanations are).
ml_emit_query_scores(S) :-
    forall(agent(Ag), ( findall(query_score(Ag, Q, N, V), query_score(Ag, Q, N, V), Lines),
                        ml_lines_pieces(Lines, Ps), atomics_to_string(Ps, X), write(S, X) )).
ml_lines_pieces([], []).
ml_lines_pieces([L|Ls], P0) :- ml_pieces(L, P0, ['\n'|P]), ml_lines_pieces(Ls, P).

%% ml_emit(+Stream, +Term): Term on a line of its own, printed the way clingo prints symbols.
ml_emit(S, T) :- ml_pieces(T, Ps, ['\n']), atomics_to_string(Ps, Line), write(S, Line).

%% ml_write(+Stream, +Term), ml_text(+Term, -String): a ground term printed as clingo prints it.
ml_write(S, T) :- ml_text(T, X), write(S, X).
ml_text(T, X) :- ml_pieces(T, Ps, []), atomics_to_string(Ps, X).

% The text of a term as a list of atomic pieces (one string made of them is written at once:
% writing piece by piece costs a stream operation each). '$ml_text'(Text) is a term printed
% already (a case, printed once for all of its lines); no fact or rule makes a name with a '$'.
ml_pieces(T, P0, P) :- atom(T), !, P0 = [T|P].
ml_pieces(T, P0, P) :- integer(T), !, P0 = [T|P].
ml_pieces(T, P0, P) :- string(T), !, ml_string(T, X), P0 = [X|P].
ml_pieces('$ml_text'(X), P0, P) :- !, P0 = [X|P].
ml_pieces(T, [F, '('|P1], P) :- compound_name_arguments(T, F, [A|As]), ml_args(As, A, P1, [')'|P]).
ml_args([], A, P0, P) :- ml_pieces(A, P0, P).
ml_args([B|Bs], A, P0, P) :- ml_pieces(A, P0, [','|P1]), ml_args(Bs, B, P1, P).

% A string in double quotes, with clingo's three escapes (\", \\ and \n; every other character
% as it is). Strings are few and printed often (an agent's name is on most of its lines), so each
% one's text is kept for the run, under its term_hash/2.
:- dynamic ml_string_text/3.
ml_string(Str, X) :-
    term_hash(Str, H),
    (   ml_string_text(H, Str, X0) -> X = X0
    ;   string_codes(Str, Cs), ml_escape(Cs, Es), string_codes(X, [0'"|Es]), assertz(ml_string_text(H, Str, X))
    ).
ml_escape([], [0'"]).
ml_escape([C|Cs], Es) :- ml_escape_code(C, Es, Es1), ml_escape(Cs, Es1).
ml_escape_code(0'", [0'\\, 0'"|Es], Es) :- !.
ml_escape_code(0'\\, [0'\\, 0'\\|Es], Es) :- !.
ml_escape_code(0'\n, [0'\\, 0'n|Es], Es) :- !.
ml_escape_code(C, [C|Es], Es).

%% ml_rows(+Name, +Arity, -Lines): every distinct true atom Name/Arity as canonical text (none for
%% a predicate nothing defines, as on clingo).
ml_rows(Name, Arity, Lines) :-
    functor(G, Name, Arity),
    ( current_predicate(user:Name/Arity) -> findall(L, (distinct(G, G), ml_text(G, L)), Lines) ; Lines = [] ).

%% ml_declarations(-Lines): the MR declarations of the loaded rule files, each as `fact @ file`.
ml_declarations(Lines) :-
    findall(L, ( member(G, [mr(_), mr_name(_, _), mr_law(_, _), mr_serves(_, _), mr_set(_, _),
                            param_default(_, _, _), param_scale(_, _)]),
                 clause(G, true, Ref), clause_property(Ref, file(F)),
                 ml_text(G, T), format(string(L), "~w @ ~w", [T, F]) ), Lines).

%% ml_undefined_calls(+Files, -Calls): the goals that the clauses loaded from Files call and that
%% no rule or fact defines (usually a typo), each as "Name/Arity|CallerName/CallerArity|File|Line".
%% Read from the loaded code, meta-calls (findall/3, \+, forall/2, ...) included, so that a clause
%% a run never reaches is checked too.
:- use_module(library(prolog_codewalk)).
:- dynamic ml_undef/3.
ml_note_undefined(Callee, Caller, clause(Ref)) :- !, assertz(ml_undef(Callee, Caller, Ref)).
ml_note_undefined(_, _, _).
ml_undefined_calls(Files, Calls) :-
    retractall(ml_undef(_, _, _)),
    findall(R, ( member(F, Files), source_file(user:H, F), clause(user:H, _, R) ), Refs),
    prolog_walk_code([undefined(trace), on_trace(ml_note_undefined), source(false), clauses(Refs)]),
    findall(S, ( ml_undef(_:G, _:C, Ref), functor(G, N, A), functor(C, CN, CA),
                 clause_property(Ref, file(File)), clause_property(Ref, line_count(L)),
                 format(string(S), "~w/~w|~w/~w|~w|~w", [N, A, CN, CA, File, L]) ), Found),
    retractall(ml_undef(_, _, _)),
    sort(Found, Calls).

%% ml_predicate_place(+Name, +Arity, -File, -Line): where a predicate is defined.
ml_predicate_place(Name, Arity, File, Line) :-
    functor(H, Name, Arity), predicate_property(user:H, file(File)), predicate_property(user:H, line_count(Line)).
