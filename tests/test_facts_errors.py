"""Bad input gets one clear error: the exact text a user sees, exit status 2, no traceback.

Covers facts files (syntax, schema, input errors the rules derive), settings and options, user
rule files, code hidden in string labels (kept as data, never run) and output files (written
whole or not at all). Every test runs the real CLI in-process from a temporary working folder, so
the paths in messages are the relative ones a user would type.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from helpers import ROOT, run_cli
from metalogic.engine import schema

Q1 = "query(q1, map_dir(t, 0, a, b)).\n"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder: str, files: dict[str, str | bytes]) -> str:
    for name, body in files.items():
        path = Path(folder, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    return folder


def fails(*args: str) -> str:
    """Run the CLI, insist on exit status 2 and nothing on stdout; return stderr."""
    code, out, err = run_cli(*args)
    assert code == 2, (code, out, err)
    assert out == ""
    assert "Traceback" not in err
    return err


# ---------------------------------------------------------------------------------------------
# Facts files, line by line.

FACTS_CASES = {
    "syntax": (
        Q1 + "answer(ag, q1, n\n",
        """\
error: syntax/facts.lp:2:17: syntax error: unexpected end of the line
    answer(ag, q1, n
                    ^
  expected: ',' or ')'
  fix: write the whole fact on one line: close every '(' and end it with '.'
""",
    ),
    "variable": (
        Q1 + "answer(Agent, q1, n).\n",
        """\
error: variable/facts.lp:2:8: syntax error: variable 'Agent' in a fact
    answer(Agent, q1, n).
           ^
  expected: ground facts only: no variables
  fix: write a lower-case atom, an integer or a "string" instead
""",
    ),
    "rule": (
        Q1 + "answer(ag, q1, n) :- query(q1, _).\n",
        """\
error: rule/facts.lp:2:19: syntax error: rule or directive ':-' in a facts file
    answer(ag, q1, n) :- query(q1, _).
                      ^
  expected: facts only ('head.'), never rules ('head :- body.') or directives
  fix: move rules into a rule file loaded with --rules
""",
    ),
    "directive": (
        ":- initialization(halt).\n" + Q1,
        """\
error: directive/facts.lp:1:1: syntax error: rule or directive ':-' in a facts file
    :- initialization(halt).
    ^
  expected: facts only ('head.'), never rules ('head :- body.') or directives
  fix: move rules into a rule file loaded with --rules
""",
    ),
    "script": (
        Q1 + "#script (python)\nimport os\n#end.\n",
        """\
error: script/facts.lp:2:1: syntax error: directive '#' in a facts file
    #script (python)
    ^
  expected: a fact such as answer(agent, q1, left).
  fix: facts files hold facts only; remove the directive
script/facts.lp:3:8: syntax error: unexpected 'os'
    import os
           ^
  expected: '.' at the end of the fact
script/facts.lp:4:1: syntax error: directive '#' in a facts file
    #end.
    ^
  expected: a fact such as answer(agent, q1, left).
  fix: facts files hold facts only; remove the directive
""",
    ),
    "arity": (
        Q1 + "answer(ag, q1).\n",
        """\
error: arity/facts.lp:2:1: answer/2 has the wrong number of arguments
    answer(ag, q1).
    ^
  expected: answer/3 as answer(Agent, Q, Value)
  fix: give it exactly these arguments, in this order
""",
    ),
    "type": (
        Q1 + "detection(t, 0, a, mug, 1500, 0, 0, 10, 10).\n",
        """\
error: type/facts.lp:2:25: argument 5 (ConfMilli) of detection/9 is wrong: found 1500, outside 0..1000
    detection(t, 0, a, mug, 1500, 0, 0, 10, 10).
                            ^
  expected: a confidence in thousandths (0..1000) in detection(T, S, O, Class, ConfMilli, X1, Y1, X2, Y2)
  fix: change ConfMilli; 'metalogic schema' lists every predicate's arguments
""",
    ),
    "range": (
        Q1 + "answer(ag, q1, 1000001).\n",
        """\
error: range/facts.lp:2:16: argument 3 (Value) of answer/3 is wrong: found 1000001, outside 0..1000000
    answer(ag, q1, 1000001).
                   ^
  expected: an answer value (a name such as left, move(forward, none), an integer 0..1000000, or invalid) \
in answer(Agent, Q, Value)
  fix: change Value; 'metalogic schema' lists every predicate's arguments
""",
    ),
    "string_id": (
        'query("q1", map_dir(t, 0, a, b)).\n',
        """\
error: string_id/facts.lp:1:7: argument 1 (Q) of query/2 is wrong: found a string
    query("q1", map_dir(t, 0, a, b)).
          ^
  expected: an identifier (a lower-case atom or an integer) in query(Q, Content)
  fix: change Q; 'metalogic schema' lists every predicate's arguments
""",
    ),
    "reserved": (
        Q1 + "answer(not, q1, n).\n",
        """\
error: reserved/facts.lp:2:8: syntax error: 'not' is a reserved word
    answer(not, q1, n).
           ^
  expected: an atom other than 'not'
  fix: quote it as a string
""",
    ),
    "float": (
        "step_mm(t, 0.25).\n",
        """\
error: float/facts.lp:1:12: syntax error: decimal number '0.25'
    step_mm(t, 0.25).
               ^
  expected: integers only (lengths in millimetres, confidences in thousandths)
  fix: scale the value to an integer
""",
    ),
    "two_facts": (
        "state(t, 0). state(t, 1).\n",
        """\
error: two_facts/facts.lp:1:14: syntax error: second fact on one line
    state(t, 0). state(t, 1).
                 ^
  expected: one fact per line
  fix: put each fact on its own line
""",
    ),
    "derived": (
        "violation(ag, c1, mr1, sc2a, outside_composition).\n",
        """\
error: derived/facts.lp:1:1: violation/5 is derived by metalogic, not given as a fact
    violation(ag, c1, mr1, sc2a, outside_composition).
    ^
  expected: input facts only (see docs/facts.md)
  fix: remove it; metalogic check computes it
""",
    ),
    "block_comment": (
        "/* comment */\n",
        """\
error: block_comment/facts.lp:1:1: syntax error: unexpected '/'
    /* comment */
    ^
  expected: a fact such as answer(agent, q1, left).
  fix: comments start with '%' and run to the end of the line
""",
    ),
}


@pytest.mark.parametrize("name", sorted(FACTS_CASES))
def test_facts_file_errors(name: str) -> None:
    body, expected = FACTS_CASES[name]
    write(name, {"facts.lp": body})
    assert fails("check", name) == expected.format(predicates=", ".join(sorted(schema.BY_KEY)))


def test_unknown_predicate_suggests_the_closest_one() -> None:
    write("typo", {"facts.lp": Q1 + "anwser(ag, q1, n).\n"})
    assert (
        fails("check", "typo")
        == f"""\
error: typo/facts.lp:2:1: unknown predicate anwser/3
    anwser(ag, q1, n).
    ^
  expected: one of {", ".join(sorted(schema.BY_KEY))}
  fix: did you mean answer/3?
"""
    )


def test_non_utf8_bytes() -> None:
    write("latin1", {"a.lp": Q1.encode() + b'answer("caf\xe9", q1, n).\n'})
    assert (
        fails("check", "latin1")
        == """\
error: latin1/a.lp:2:12: bytes that are not UTF-8 text
  expected: a UTF-8 text file
  fix: re-save the file as UTF-8
"""
    )


def test_empty_and_missing_folders() -> None:
    write("empty", {"notes.txt": "facts go in .lp files\n"})
    assert (
        fails("check", "empty")
        == """\
error: no facts files (*.lp) under 'empty'
  expected: at least one *.lp file of ground facts (see docs/facts.md)
  fix: point at the folder that holds the facts, or write them there first
"""
    )
    assert (
        fails("check", "nowhere")
        == """\
error: facts folder 'nowhere' does not exist
  expected: a folder holding facts files (*.lp)
  fix: check the path, e.g. metalogic check examples/facts/
"""
    )


def test_many_problems_are_listed_up_to_ten_then_counted() -> None:
    write("many", {"a.lp": "".join(f"state(t, {i}.\n" for i in range(13))})  # each misses its ')'
    err = fails("check", "many")
    assert err.count("syntax error: unexpected '.'") == 10
    assert err.endswith("(3 more problems not shown)\n")


# ---------------------------------------------------------------------------------------------
# Input errors the rules derive (facts that do not fit together), each located by file and line.


@pytest.mark.parametrize("engine", ["clingo", "prolog", "both"])
def test_input_errors_are_located(engine: str) -> None:
    write(
        "inputs",
        {
            "queries.lp": Q1 + "query(q2, map_dir(t, 0, b, a)).\nquery(q3, obj_dir(t, 0, a, b)).\n"
            "form(q7, choice).\n",
            "answers.lp": "answer(ag, q1, n).\nanswer(ag, q2, left).\nanswer(ag, q9, n).\n"
            "answer(ag, q3, left).\nanswer(ag, q3, right).\n",
        },
    )
    assert (
        fails("check", "inputs", "--engine", engine)
        == """\
error: inputs/answers.lp:2:1: answer left does not fit query q2, which takes a map direction name
    answer(ag, q2, left).
    ^
  expected: a value from the map vocabulary (see docs/facts.md), or invalid
  fix: fix the value, or write invalid if the reply was unusable
inputs/answers.lp:3:1: answer to query q9, but no query(q9, ...) fact exists
    answer(ag, q9, n).
    ^
  expected: a query(q9, Content) fact in the folder
  fix: add the query or fix the id
inputs/queries.lp:4:1: form given for query q7, which does not exist
    form(q7, choice).
    ^
  expected: a query fact with that id
  fix: add the query or remove the form
inputs/answers.lp:5:1: agent ag answers query q3 twice (left and right)
    answer(ag, q3, right).
    ^
  expected: one answer per agent and query
  fix: keep one answer; for repeated asks use separate agents
"""
    )


def test_two_slacks_for_one_class_are_located() -> None:
    write(
        "slacks",
        {
            "scene.lp": "class_slack(t, shelf, top, 12).\nclass_slack(t, shelf, left, 2).\n"
            "class_slack(t, shelf, top, 20).\n"
        },
    )
    assert (
        fails("check", "slacks")
        == """\
error: slacks/scene.lp:1:1: the top edge of class shelf of trajectory t has two different class_slack facts
    class_slack(t, shelf, top, 12).
    ^
  expected: one class_slack fact per trajectory, class and edge
  fix: keep the right class_slack fact and delete the other
"""
    )


def test_query_id_reused_for_another_content() -> None:
    write("reused", {"a.lp": Q1 + "query(q1, obj_dir(t, 0, a, b)).\n"})
    assert (
        fails("check", "reused")
        == """\
error: reused/a.lp:2:1: query id q1 is used for two contents (map_dir(t,0,a,b) and obj_dir(t,0,a,b))
    query(q1, obj_dir(t, 0, a, b)).
    ^
  expected: one content per query id
  fix: give one of them a new id
"""
    )


# ---------------------------------------------------------------------------------------------
# Code in string labels is data.

PAYLOAD = "x). :- halt. #script (python) import pathlib; pathlib.Path('{marker}').touch() #end. %"


def test_code_in_strings_is_kept_as_data_and_never_run(in_tmp: Path) -> None:
    marker = in_tmp / "EXECUTED"
    agent = PAYLOAD.format(marker=marker)
    reply = (
        f":- shell('touch {marker}'), halt.\n#script (python)\nimport os\nos.system('touch {marker}')\n#end."
    )
    quoted = '"' + agent.replace("\\", "\\\\").replace('"', '\\"') + '"'
    reply_q = '"' + reply.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    write(
        "code",
        {
            "a.lp": Q1 + "query(q2, map_dir(t, 0, b, a)).\n"
            f"answer({quoted}, q1, n).\nanswer({quoted}, q2, n).\n"
            f"raw_reply({quoted}, q2, {reply_q}).\n"
        },
    )
    code, out, err = run_cli("check", "code", "--engine", "both", "--out", "out")
    assert (code, err) == (0, "")
    assert not marker.exists()
    assert agent in out  # the label comes back intact in the score table
    rows = json.loads((in_tmp / "out" / "violations.json").read_text(encoding="utf-8"))
    assert [(r["agent"], r["case"], r["reason"]) for r in rows] == [(agent, "mr2(q1,q2)", "not_inverse")]
    assert f"answer({quoted},q1,n)" in rows[0]["facts"]
    # The engines are still there: a second run works (no halt was executed).
    assert run_cli("check", "code", "--engine", "prolog")[0] == 0
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------
# Settings and options.


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (
            "eps",
            """\
error: bad setting 'eps'
  expected: name=value, e.g. -c eps=0.1
  fix: write the parameter name, '=' and a number
""",
        ),
        (
            "epss=0.1",
            """\
error: unknown parameter 'epss'
  expected: one of blame_exact_max, blame_held_weight, blame_power_prior_permille, \
blame_power_prior_weight, blame_prior_permille, blame_prior_weight, blame_rounds, box_slack_px, \
centre_drift_permille, centre_span_permille, delta, depth_round_mm, eps, ground_min_dip_permille, \
ground_reach_mm, ground_slack_permille, mr5_level, pinhole_slack_permille, place_slack_permille, \
same_tol_mm, same_tol_steps, scale_level, scale_tol_permille, still_tol_mm, still_tol_permille, \
tri_tol_mm, tri_tol_steps, truth_band_mm, truth_bearing_band, truth_move_tol_mm
  fix: did you mean eps?
""",
        ),
        (
            "eps=2",
            """\
error: bad value '2' for parameter eps
  expected: a decimal from 0 to 1 in steps of 0.001 (e.g. 0.1)
  fix: write it like -c eps=0.1 (the default)
""",
        ),
        (
            "delta=0.0005",
            """\
error: bad value '0.0005' for parameter delta
  expected: a decimal from 0 to 1 in steps of 0.001 (e.g. 0.05)
  fix: write it like -c delta=0.05 (the default)
""",
        ),
        (
            "eps=abc",
            """\
error: bad value 'abc' for parameter eps
  expected: a decimal from 0 to 1 in steps of 0.001 (e.g. 0.1)
  fix: write it like -c eps=0.1 (the default)
""",
        ),
        (
            "tri_tol_mm=1.5",
            """\
error: bad value '1.5' for parameter tri_tol_mm
  expected: a whole number from 0 to 1000000
  fix: write it like -c tri_tol_mm=15 (the default)
""",
        ),
        (
            "tri_tol_mm=-1",
            """\
error: bad value '-1' for parameter tri_tol_mm
  expected: a whole number from 0 to 1000000
  fix: write it like -c tri_tol_mm=15 (the default)
""",
        ),
        (  # an exponent: overflowed Decimal (a traceback) before
            "eps=1e99999999999",
            """\
error: bad value '1e99999999999' for parameter eps
  expected: a decimal from 0 to 1 in steps of 0.001 (e.g. 0.1)
  fix: write it like -c eps=0.1 (the default)
""",
        ),
        (  # and a tiny one silently became 0
            "eps=1e-99999999999",
            """\
error: bad value '1e-99999999999' for parameter eps
  expected: a decimal from 0 to 1 in steps of 0.001 (e.g. 0.1)
  fix: write it like -c eps=0.1 (the default)
""",
        ),
    ],
)
def test_bad_settings(setting: str, expected: str) -> None:
    assert fails("check", str(ROOT / "examples" / "facts"), "-c", setting) == expected


def test_a_parameter_set_twice_is_refused() -> None:
    """Two -c values for one parameter: which one was meant is not for the check to guess."""
    assert fails("check", str(ROOT / "examples" / "facts"), "-c", "eps=0.1", "-c", "eps=0.2") == (
        "error: parameter eps is set twice\n"
        "  expected: each parameter at most once\n"
        "  fix: keep one -c eps=VALUE\n"
    )


def test_unknown_agent_suggests_the_closest_one() -> None:
    examples = str(ROOT / "examples" / "facts")
    assert (
        fails("check", examples, "--agent", "stedy")
        == f"""\
error: no answers from agent 'stedy' in {examples}
  expected: one of shaky, steady
  fix: did you mean steady?
"""
    )
    assert fails("check", examples, "--agent", "nobody").endswith("  fix: check the agent name\n")


def test_unknown_output_format() -> None:
    assert (
        fails("check", str(ROOT / "examples" / "facts"), "--out", "out", "--format", "xml")
        == """\
error: unknown output format 'xml'
  expected: csv, json, parquet
  fix: e.g. --format csv,json
"""
    )
    assert not Path("out").exists()


# ---------------------------------------------------------------------------------------------
# User rule files (--rules): an MR "height" as a pair of files, and ways to get it wrong.

HEIGHT_DECL = """\
% Height order: above twice means above.
mr(height).
mr_name(height, "height order").
mr_law(height, "above(A,B) and above(B,C) in any frames imply above(A,C)").
mr_serves(height, sc2a).
"""
HEIGHT_LP = """\
% Height order: above twice means above.
#include "height.decl".
testcase(height(Q1, Q2, Q3), height, sc2a) :- pair_query(Q1, obj_dir, T, S1, A, B),
    pair_query(Q2, obj_dir, T, S2, B, C), pair_query(Q3, obj_dir, T, _, A, C), S1 != S2.
case_query(height(Q1, Q2, Q3), (Q1; Q2; Q3)) :- testcase(height(Q1, Q2, Q3), height, _).
height_up(Ag, Q) :- dir_answer(Ag, Q, N), dir_name(ego, N, _, _, 1).
violates(Ag, height(Q1, Q2, Q3), not_above) :- testcase(height(Q1, Q2, Q3), height, _),
    height_up(Ag, Q1), height_up(Ag, Q2), dir_answer(Ag, Q3, _), not height_up(Ag, Q3).
"""
HEIGHT_PL = """\
% Height order: above twice means above.
:- include('height.decl').
testcase(height(Q1, Q2, Q3), height, sc2a) :- pair_query(Q1, obj_dir, T, S1, A, B),
    pair_query(Q2, obj_dir, T, S2, B, C), S1 \\== S2, pair_query(Q3, obj_dir, T, _, A, C).
case_query(height(Q1, Q2, Q3), Q) :- testcase(height(Q1, Q2, Q3), height, _), member(Q, [Q1, Q2, Q3]).
height_up(Ag, Q) :- dir_answer(Ag, Q, N), dir_name(ego, N, _, _, 1).
violates(Ag, height(Q1, Q2, Q3), not_above) :- testcase(height(Q1, Q2, Q3), height, _),
    height_up(Ag, Q1), height_up(Ag, Q2), dir_answer(Ag, Q3, _), \\+ height_up(Ag, Q3).
"""
HEIGHT_FACTS = """\
query(q1, obj_dir(t, 0, a, b)).
query(q2, obj_dir(t, 1, b, c)).
query(q3, obj_dir(t, 2, a, c)).
answer(ag, q1, above).
answer(ag, q2, above).
answer(ag, q3, below).
"""


def rules(
    folder: str,
    lp: str | None = HEIGHT_LP,
    pl: str | None = HEIGHT_PL,
    decl: str | None = HEIGHT_DECL,
    **extra: str,
) -> str:
    write("facts", {"a.lp": HEIGHT_FACTS})
    named = (("height.lp", lp), ("height.pl", pl), ("height.decl", decl))
    files = {name: body for name, body in named if body is not None}
    return write(folder, {**files, **extra})


def test_a_good_user_mr_runs_on_both_engines() -> None:
    code, _, err = run_cli("check", "facts", "--rules", rules("good"), "--engine", "both", "--out", "out")
    assert (code, err) == (0, "")
    rows = json.loads(Path("out/violations.json").read_text())
    assert [(r["case"], r["mr"], r["reason"]) for r in rows] == [("height(q1,q2,q3)", "height", "not_above")]


def test_missing_twin() -> None:
    assert (
        fails("check", "facts", "--rules", rules("lonely", pl=None))
        == """\
error: lonely/height.lp: MR file without its twin: height.pl is missing next to it
  expected: each MR as a pair: NAME.lp for clingo and NAME.pl for SWI-Prolog
  fix: write height.pl with the same law (see docs/adding-an-mr.md)
"""
    )


def test_syntax_error_in_the_clingo_file() -> None:
    lp = HEIGHT_LP.replace("A, C), S1 != S2.", "A, C) S1 != S2.")  # a missing comma
    assert (
        fails("check", "facts", "--rules", rules("badlp", lp=lp))
        == """\
error: badlp/height.lp:4:79: syntax error, unexpected <VARIABLE>
  expected: a valid clingo rule file
  fix: fix the rule at that place
"""
    )


def test_syntax_error_in_the_prolog_file() -> None:
    pl = HEIGHT_PL.replace("S1 \\== S2, pair_query", "S1 \\== S2 pair_query")
    assert (
        fails("check", "facts", "--rules", rules("badpl", pl=pl), "--engine", "prolog")
        == """\
error: badpl/height.pl:4:51: SWI-Prolog error: Syntax error: Operator expected
  expected: a rule file that loads without errors or warnings
  fix: fix the clause at that place
"""
    )


def test_undefined_predicate_in_the_clingo_file() -> None:
    lp = HEIGHT_LP.replace("height_up(Ag, Q) :- dir_answer(", "height_up(Ag, Q) :- dir_answr(")
    assert (
        fails("check", "facts", "--rules", rules("typo", lp=lp))
        == """\
error: typo/height.lp:6:21: 'dir_answr(Ag,Q,N)' is used but no rule or fact defines it
  expected: a predicate defined by a rule file or declared in docs/facts.md
  fix: check the spelling of the predicate
"""
    )


def test_undefined_predicate_in_the_prolog_file() -> None:
    pl = HEIGHT_PL.replace("height_up(Ag, Q) :- dir_answer(", "height_up(Ag, Q) :- dir_answr(")
    assert (
        fails("check", "facts", "--rules", rules("pltypo", pl=pl), "--engine", "prolog")
        == """\
error: pltypo/height.pl:6: SWI-Prolog: dir_answr/3 is called by height_up/2 but no rule or fact defines it
  expected: a predicate defined by a rule file or declared in docs/facts.md
  fix: check the spelling of the predicate in the .pl file
"""
    )


def test_unknown_capability() -> None:
    folder = rules("cap", decl=HEIGHT_DECL.replace("sc2a).", "sc2aa)."))
    assert (
        fails("check", "facts", "--rules", folder)
        == """\
error: cap/height.decl:5: MR height serves unknown capability 'sc2aa'
  expected: one of sc1a, sc1b, sc2a, sc2b, sc3a, sc3b, sc4a, sc4b
  fix: did you mean sc2a?
"""
    )


def test_a_set_that_is_not_a_plain_name() -> None:
    """The headline orders kinds of evidence by name on both engines, which agree only on plain
    lower-case names."""
    decl = HEIGHT_DECL + 'mr_set(height, "Mine").\n'
    assert (
        fails("check", "facts", "--rules", rules("setname", decl=decl))
        == """\
error: setname/height.decl:6: MR height names its set "Mine"
  expected: a lower-case name such as mine or my_checks
  fix: write mr_set(height, NAME) with a plain name
"""
    )
    ok = rules("setok", decl=HEIGHT_DECL + "mr_set(height, mine).\n")
    code, _out, err = run_cli("mrs", "--rules", ok)
    assert code == 0, err


def test_helper_predicate_clash_between_two_user_mrs() -> None:
    other_lp = HEIGHT_LP.replace("height", "tall").replace("tall_up", "height_up")
    other_pl = HEIGHT_PL.replace("height", "tall").replace("tall_up", "height_up")
    other_decl = HEIGHT_DECL.replace("height", "tall")
    folder = rules("clash", **{"tall.lp": other_lp, "tall.pl": other_pl, "tall.decl": other_decl})
    assert (
        fails("check", "facts", "--rules", folder)
        == """\
error: clash/tall.lp:6: helper predicate height_up/2 is also defined in clash/height.lp
  expected: helper predicates unique to one MR file
  fix: prefix the helper with the MR's name, e.g. tall_height_up
"""
    )


def test_user_file_redefining_a_core_predicate() -> None:
    lp = HEIGHT_LP.replace("height_up(Ag, Q) :- dir_answer", "case_off(Ag, Q) :- dir_answer")
    assert (
        fails("check", "facts", "--rules", rules("core", lp=lp))
        == """\
error: core/height.lp:6: rule file defines case_off/2, which belongs to the core or the facts schema
  expected: new helper predicates with their own names
  fix: rename the helper, e.g. height_case_off
"""
    )


def test_reading_a_composition_table_without_stating_the_need() -> None:
    """clingo grounds compose/4 only for the pairs some rule needs: a lookup with no need would
    silently find nothing, so the loader refuses it, and accepts the file once the need is there."""
    lookup = "height_same(Ag, Q) :- dir_answer(Ag, Q, N), compose(ego, N, N, N).\n"
    assert (
        fails("check", "facts", "--rules", rules("need", lp=HEIGHT_LP + lookup))
        == """\
error: need/height.lp:9: the rules read compose/4 but never state need_compose/3, so the table would be empty
  expected: a rule deriving need_compose/3 for the pairs this file looks up
  fix: see 'Composition tables' in docs/adding-an-mr.md
"""
    )
    need = "need_compose(ego, N, N) :- dir_answer(_, _, N), dir_value(ego, N).\n"
    code, _out, err = run_cli("mrs", "--rules", rules("needok", lp=HEIGHT_LP + lookup + need))
    assert code == 0, err
    # inside an aggregate too; a helper of the same name and another arity is not a table lookup
    counted = "height_many(Ag, Q) :- dir_answer(Ag, Q, N), #count{ M : compose_in(band, ego, N, N, M) } > 1."
    own = "height_compose(X) :- compose(X, X).\ncompose(a, a).\n"
    err = fails("check", "facts", "--rules", rules("needagg", lp=HEIGHT_LP + own + counted + "\n"))
    assert err.startswith("error: needagg/height.lp:11: the rules read compose_in/5 but never state ")
    assert err.count("error:") == 1


def test_missing_declaration_file() -> None:
    assert (
        fails("check", "facts", "--rules", rules("nodecl", decl=None))
        == """\
error: nodecl/height.lp: MR height has no declaration file: height.decl is missing next to it
  expected: height.decl with the MR's declarations, one fact a line: mr(my_mr). mr_name(my_mr, "..."). \
mr_law(my_mr, "..."). mr_serves(my_mr, sc2a).
  fix: write height.decl, and include it: #include "height.decl". in height.lp and \
:- include('height.decl'). in height.pl (see docs/adding-an-mr.md)
"""
    )


def test_twin_declaring_its_own_copy() -> None:
    """A declaration stated in a twin as well is a second copy that could drift: refused."""
    pl = HEIGHT_PL.replace(
        ":- include('height.decl').\n", ":- include('height.decl').\nmr_name(height, \"h\").\n"
    )
    assert (
        fails("check", "facts", "--rules", rules("twice", pl=pl), "--engine", "both")
        == """\
error: twice/height.pl:3: height.pl declares mr_name itself
  expected: the declarations only in height.decl, which both twins include
  fix: move this line into height.decl (and out of the other twin)
"""
    )


def test_twin_not_including_its_declarations() -> None:
    lp = HEIGHT_LP.replace('#include "height.decl".\n', "")
    assert (
        fails("check", "facts", "--rules", rules("noinc", lp=lp))
        == """\
error: noinc/height.lp: height.lp does not include its declarations
  expected: a line #include "height.decl". before the rules
  fix: add #include "height.decl". at the top of height.lp (see docs/adding-an-mr.md)
"""
    )


def test_a_declaration_file_holds_declarations_only() -> None:
    """A declaration file is data: ground facts of the declaration predicates, read line by line."""
    decl = HEIGHT_DECL + "height_level(3).\n"
    assert (
        fails("check", "facts", "--rules", rules("otherdecl", decl=decl))
        == """\
error: otherdecl/height.decl:6:1: height_level/1 is not a declaration
  expected: mr/1, mr_name/2, mr_law/2, mr_serves/2, mr_set/2, param_default/3, param_scale/2
  fix: move rules and other facts into the .lp and .pl twins
"""
    )
    decl = HEIGHT_DECL + "height_up(Ag, Q) :- dir_answer(Ag, Q, above).\n"
    assert (
        fails("check", "facts", "--rules", rules("rulesdecl", decl=decl))
        == """\
error: rulesdecl/height.decl:6:11: variable 'Ag' in a fact
  expected: ground facts only: no variables (a declaration file holds one ground fact a line)
  fix: write a lower-case atom, an integer or a "string" instead
"""
    )
    decl = HEIGHT_DECL.replace('"height order"', "height_order")
    assert (
        fails("check", "facts", "--rules", rules("kinddecl", decl=decl))
        == """\
error: kinddecl/height.decl:3:1: argument 2 of mr_name/2 is height_order
  expected: mr_name(atom, string)
  fix: see docs/adding-an-mr.md
"""
    )


def test_engine_both_fails_on_twins_that_encode_different_laws() -> None:
    pl = HEIGHT_PL.replace("\\+ height_up(Ag, Q3)", "height_up(Ag, Q3)")  # the .pl half flags the wrong case
    err = fails("check", "facts", "--rules", rules("broken", pl=pl), "--engine", "both")
    assert err.startswith("""\
error: the engines disagree on violation (1 only from clingo, 0 only from prolog):
  only clingo: violation(ag,height(q1,q2,q3),height,sc2a,not_above)
  expected: identical results from clingo and SWI-Prolog
  fix: an MR's .lp and .pl halves encode different laws; make them agree
the engines disagree on score (1 only from clingo, 1 only from prolog):
  only clingo: score(ag,sc2a,1,1)
  only prolog: score(ag,sc2a,1,0)
""")
    # Each engine alone runs (and reports its own verdict); only `both` insists they agree.
    assert run_cli("check", "facts", "--rules", "broken", "--engine", "prolog")[0] == 0


# ---------------------------------------------------------------------------------------------
# Output files appear whole or not at all.


def test_a_failing_write_leaves_no_partial_file(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = in_tmp / "out"
    out.mkdir()
    (out / "scores.parquet").write_bytes(b"the previous run's file")

    def disk_full(self: pl.DataFrame, path: Path, *args: object, **kwargs: object) -> None:
        Path(path).write_bytes(b"PAR1 half a file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", disk_full)
    examples = str(ROOT / "examples" / "facts")
    code, _, err = run_cli("check", examples, "--out", "out", "--format", "csv,parquet")
    assert code == 2
    assert (
        err
        == """\
error: cannot write out/scores.parquet: No space left on device
  expected: a writable output folder with free space
  fix: free some space or choose another output folder
"""
    )
    assert (out / "scores.parquet").read_bytes() == b"the previous run's file"
    assert sorted(p.name for p in out.iterdir()) == ["scores.csv", "scores.parquet"]  # no temporary files
    assert pl.read_csv(out / "scores.csv").height == 16  # the file written before the failure is whole
