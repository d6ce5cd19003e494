"""Input errors derived by the rules (answers that do not fit their query, reused query ids,
boxes that are empty, ...) as located messages: what is wrong, the file:line:column of the fact
behind it, what was expected and how to fix it.

Both the questions stage (`metalogic generate`) and the verdict stage (`metalogic check`) run the
same input checks of logic/core/, so both turn the engine's input_error/1 lines into messages
here; neither stage imports the other.
"""

from __future__ import annotations

from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import FactSet
from metalogic.engine.session.runs import EngineOutput
from metalogic.engine.terms import Fun, Term, parse_term, text


# What each input error means, and the fact to point at.
def _describe_input_error(e: Term) -> tuple[str, str, str, Term | None]:
    assert isinstance(e, Fun)
    a = e.args
    if e.name == "answer_does_not_fit":
        ag, q, v, ty = a
        return (
            f"answer {text(v)} does not fit query {text(q)}, which takes {_type_words(str(ty))}",
            f"a value from the {ty} vocabulary (see docs/facts.md), or invalid",
            "fix the value, or write invalid if the reply was unusable",
            Fun("answer", (ag, q, v)),
        )
    if e.name == "answer_to_unknown_query":
        ag, q = a
        return (
            f"answer to query {text(q)}, but no query({text(q)}, ...) fact exists",
            f"a query({text(q)}, Content) fact in the folder",
            "add the query or fix the id",
            Fun("answer", (ag, q)),  # located by its first arguments
        )
    if e.name == "two_answers":
        ag, q, v1, v2 = a
        return (
            f"agent {text(ag)} answers query {text(q)} twice ({text(v1)} and {text(v2)})",
            "one answer per agent and query",
            "keep one answer; for repeated asks use separate agents",
            Fun("answer", (ag, q, v2)),
        )
    if e.name == "query_reused":
        q, c1, c2 = a
        return (
            f"query id {text(q)} is used for two contents ({text(c1)} and {text(c2)})",
            "one content per query id",
            "give one of them a new id",
            Fun("query", (q, c2)),
        )
    if e.name == "unknown_query_kind":
        q, c = a
        return (
            f"query {text(q)} has an unknown content {text(c)}",
            "a content listed in docs/facts.md",
            "fix the content",
            Fun("query", (q, c)),
        )
    if e.name == "form_of_unknown_query":
        (q,) = a
        return (
            f"form given for query {text(q)}, which does not exist",
            "a query fact with that id",
            "add the query or remove the form",
            Fun("form", (q,)),  # located by its first argument
        )
    if e.name in ("empty_box", "two_boxes"):
        t, s, o = a
        what = "has an empty box (x2 < x1 or y2 < y1)" if e.name == "empty_box" else "has two boxes"
        return (
            f"detection of object {text(o)} in state {text(s)} of trajectory {text(t)} {what}",
            "one box per object and state with x1 <= x2 and y1 <= y2 (both corners inside the box)",
            "fix the detection",
            None,
        )
    if e.name in ("two_cameras", "two_slacks"):
        (t,) = a
        pred = "camera" if e.name == "two_cameras" else "box_slack"
        return (
            f"trajectory {text(t)} has two different {pred} facts",
            f"one {pred} fact per trajectory",
            f"keep the right {pred} fact and delete the other",
            Fun(pred, (t,)),
        )
    if e.name == "two_pitches":
        t, s = a
        return (
            f"state {text(s)} of trajectory {text(t)} has two different camera_pitch facts",
            "one camera_pitch fact per trajectory and state",
            "keep the right camera_pitch fact and delete the other",
            Fun("camera_pitch", (t, s)),
        )
    if e.name == "two_heights":
        t, s = a
        return (
            f"state {text(s)} of trajectory {text(t)} has two different camera_height facts",
            "one camera_height fact per trajectory and state",
            "keep the right camera_height fact and delete the other",
            Fun("camera_height", (t, s)),
        )
    if e.name == "two_class_slacks":
        t, cl, edge = a
        return (
            f"the {text(edge)} edge of class {text(cl)} of trajectory {text(t)} has two different "
            "class_slack facts",
            "one class_slack fact per trajectory, class and edge",
            "keep the right class_slack fact and delete the other",
            Fun("class_slack", (t, cl, edge)),
        )
    if e.name == "two_class_centres":
        t, cl = a
        return (
            f"class {text(cl)} of trajectory {text(t)} has two different class_centre facts",
            "one class_centre fact per trajectory and class",
            "keep the right class_centre fact and delete the other",
            Fun("class_centre", (t, cl)),
        )
    if e.name in ("two_supports", "two_footprints"):
        t, o = a
        pred = "support" if e.name == "two_supports" else "footprint"
        return (
            f"object {text(o)} of trajectory {text(t)} has two different {pred} facts",
            f"one {pred} fact per trajectory and object",
            f"keep the right {pred} fact and delete the other",
            Fun(pred, (t, o)),
        )
    return (f"input error {text(e)}", "consistent facts", "", None)


def _type_words(ty: str) -> str:
    return {
        "steps": "a whole number of steps",
        "mm": "a length in millimetres",
        "move": "a move such as move(forward, none)",
    }.get(ty, f"a {ty} direction name")


def _one_of_each_pair(errors: list[str]) -> list[str]:
    """The rules derive two_answers and query_reused in both orders (V1, V2 and V2, V1); report
    each pair once."""
    from metalogic.engine.results import split_args

    seen, out = set(), []
    for line in errors:
        inner = split_args(line)[0]
        if inner.startswith(("two_answers(", "query_reused(")):
            args = split_args(inner)
            key = (inner.split("(", 1)[0], *args[:-2], frozenset(args[-2:]))
            if key in seen:
                continue
            seen.add(key)
        out.append(line)
    return out


def input_errors(out: EngineOutput, facts: FactSet, limit: int = 10) -> MetalogicError:

    problems = []
    errors = _one_of_each_pair(sorted(out.lines["input_error"]))
    for line in errors[:limit]:
        term = parse_term(line)
        assert isinstance(term, Fun)
        what, expected, fix, fact = _describe_input_error(term.args[0])
        where, src = ("", "")
        if fact is not None:
            loc = facts.locate(fact, prefix=True)
            if loc:
                where, src = loc
        problems.append(
            Problem(
                what,
                where=where,
                source_line=src,
                column=int(where.rsplit(":", 1)[1]) if where else 0,
                expected=expected,
                fix=fix,
            )
        )
    return MetalogicError(problems, more=max(0, len(errors) - limit))
