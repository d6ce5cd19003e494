"""Answer spaces: which values a question takes, given its kind and surface form.

The names come from `metalogic.engine.vocab.vocabulary()` (the logic tables), never re-typed here.
Surface forms (form/2):
  choice             the options listed in vocabulary order (a magnitude: whole centimetres)
  options(reversed)  the same options in reverse vocabulary order
  options(V1, ...)   just the given values, in the given order (a magnitude: shown in metres)
  free               no options listed, the direction said in words (a magnitude: metres)
  reworded           the question in a second wording (options as in choice; a magnitude: centimetres)
"""

from __future__ import annotations

from dataclasses import dataclass

from metalogic.agents.base import Question
from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import Atom, Fun, Term, text
from metalogic.engine.vocab import vocabulary

MAX_MAGNITUDE = 1_000_000  # the largest integer answer the facts schema takes
FORMS = ("choice", "free", "reworded", "options(reversed)", "options(V1, ...)")
INVALID = Atom("invalid")


@dataclass(frozen=True)
class AnswerSpace:
    """The values one question takes, and how they are offered."""

    kind: str
    type: str  # a direction vocabulary (move, ego, map) or a magnitude (steps, mm)
    form: str  # choice | free | reworded | options
    names: tuple[str, ...] = ()  # direction names (the translations, for moves)
    turns: tuple[str, ...] = ()  # move only
    options: tuple[Term, ...] = ()  # offered options, for the options(...) form
    unit: str = ""  # magnitudes: the unit the question asks in: steps, m or cm
    step_mm: int | None = None

    @property
    def is_magnitude(self) -> bool:
        return self.type in vocabulary().magnitudes

    @property
    def is_move(self) -> bool:
        return self.type == "move"

    def offered(self) -> tuple[Term, ...]:
        """Every value a multiple-choice reading of the question allows (empty for open magnitudes)."""
        if self.options:
            return self.options
        if self.is_move:
            return tuple(move(t, r) for t in self.names for r in self.turns)
        if self.is_magnitude:
            return ()
        return tuple(Atom(n) for n in self.names)

    def contains(self, v: Term) -> bool:
        """Is `v` a valid answer value of this question's vocabulary (whatever the options)?"""
        if self.is_magnitude:
            return isinstance(v, int) and not isinstance(v, str) and 0 <= v <= MAX_MAGNITUDE
        if self.is_move:
            return (
                isinstance(v, Fun)
                and v.name == "move"
                and len(v.args) == 2
                and str(v.args[0]) in self.names
                and str(v.args[1]) in self.turns
            )
        return isinstance(v, Atom) and str(v) in self.names

    def to_unit(self, value_mm_or_steps: int) -> float:
        """A stored value in the unit the question asks in (for showing magnitude options)."""
        if self.unit == "m":
            return value_mm_or_steps / 1000
        if self.unit == "cm":
            return value_mm_or_steps / 10
        return float(value_mm_or_steps)


def move(translation: str, turn: str) -> Fun:
    return Fun("move", (Atom(translation), Atom(turn)))


def space_for(q: Question, step_mm: int | None = None, where: str = "") -> AnswerSpace:
    """The answer space of a question; a clear error for a form or option that does not fit."""
    vocab = vocabulary()
    ty = vocab.query_kinds[q.kind].answer_type
    form_name = q.form.name if isinstance(q.form, Fun) else str(q.form)
    magnitude = ty in vocab.magnitudes
    names = () if magnitude else vocab.names[ty]
    turns = tuple(vocab.turns) if ty == "move" else ()
    if form_name not in ("choice", "free", "reworded", "options") or (form_name == "options") != isinstance(
        q.form, Fun
    ):
        raise _form_error(q, where, f"unknown surface form '{text(q.form)}'")
    unit = (
        ("steps" if ty == "steps" else "m" if form_name in ("free", "options") else "cm") if magnitude else ""
    )
    space = AnswerSpace(q.kind, ty, form_name, names, turns, (), unit, step_mm)
    if not isinstance(q.form, Fun):
        return space
    if q.form.args == (Atom("reversed"),):
        if magnitude:
            raise _form_error(q, where, "options(reversed) lists a vocabulary, but a magnitude has none")
        return AnswerSpace(q.kind, ty, "options", names[::-1], turns[::-1], (), unit, step_mm)
    options = tuple(_option(o, space) for o in q.form.args)
    bad = [text(o) for o, ok in zip(q.form.args, options, strict=True) if ok is None]
    if bad:
        raise _form_error(q, where, f"option {bad[0]} is not in the {ty} vocabulary")
    return AnswerSpace(
        q.kind, ty, "options", names, turns, tuple(o for o in options if o is not None), unit, step_mm
    )


def _option(o: Term, space: AnswerSpace) -> Term | None:
    if space.is_move and isinstance(o, Atom) and str(o) in space.names:
        o = move(str(o), "none")  # a bare translation offers that translation without a turn
    return o if space.contains(o) else None


def _form_error(q: Question, where: str, what: str) -> MetalogicError:
    return MetalogicError.single(
        f"{what} for query {q.key}",
        where=where,
        expected="form(Q, F) with F one of choice, free, reworded, options(reversed) or options(V1, V2, ...) "
        "with values of the query's vocabulary",
        fix="fix the form/2 fact (see docs/agents.md, 'Surface forms')",
    )
