"""One way to run a logic program, on clingo or on the process's one embedded SWI-Prolog.

Every module that runs rules goes through a Session instead of driving an engine itself:

    s = Session("clingo")                  # a fresh Control (long-lived Controls grow in memory)
    s.load(CORE_DIR / "algebra_tables.lp") # rule files; a file that does not parse is a MetalogicError
    s.add("agent(a).\\n")                  # program text, or a sequence of terms passed as data
    s.rows("compose", 4)                   # {"compose(n,e,ne,exact)", ...}: clingo's canonical text

clingo sessions also give the symbols themselves (`symbols`, `atoms`). A prolog session asks the
shared engine under its lock: its rule files are swapped in when a query runs (the engine keeps
what it loaded until another rule set is asked for), and `resident` files (modules of their own,
such as the memory rules) stay loaded beside whatever rule set is in.

The embedded SWI-Prolog lives here once per process (pyswip cannot start a second one); every
PrologEngine handle shares it; `Session.check` runs the MR check of logic/core/driver.pl on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import clingo

from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import display_path
from metalogic.engine.session import ENGINES
from metalogic.engine.session.prolog import LOCK, NAME, PrologEngine, call_with_terms
from metalogic.engine.terms import Atom, Fun, Str, Term
from metalogic.logic import SHARED_TABLES

# How clingo optimises: core-guided (usc) proves an optimum of many small independent parts at once,
# where model-guided branch and bound (clingo's default) can search for minutes on a hundred answers.
OPTIMUM = ("--opt-strategy=usc",)


# ---- clingo's messages ---------------------------------------------------------------------------


class _Log:
    """Collects clingo's messages (so clingo prints nothing) for clingo_problems to explain."""

    def __init__(self) -> None:
        self.messages: list[tuple[clingo.MessageCode, str]] = []

    def __call__(self, code: clingo.MessageCode, message: str) -> None:
        self.messages.append((code, message))


def clingo_problems(log: _Log, *, undefined: bool = False) -> list[Problem]:
    """Turn clingo's log messages into problems (syntax errors, and optionally undefined atoms)."""
    out = []
    for code, msg in log.messages:
        first, _, rest = msg.partition("\n")
        where, _, what = first.partition(": ")
        if code == clingo.MessageCode.RuntimeError or "error" in what.split(":")[0]:
            out.append(
                Problem(
                    what.replace("error: ", "", 1),
                    where=_start(where),
                    expected="a valid clingo rule file",
                    fix="fix the rule at that place",
                )
            )
        elif undefined and code == clingo.MessageCode.AtomUndefined:
            atom = rest.strip()
            name = atom.split("(")[0]
            if any(name == p.name for p in schema.PREDICATES):
                continue  # a fact predicate with no facts in this run: fine
            out.append(
                Problem(
                    f"'{atom}' is used but no rule or fact defines it",
                    where=_start(where),
                    expected="a predicate defined by a rule file or declared in docs/facts.md",
                    fix="check the spelling of the predicate",
                )
            )
    return out


def _start(where: str) -> str:
    """file:line:column of clingo's file:line:column-column (or -line:column): only the end
    range goes, not a dash in the file's name."""
    return re.sub(r"-\d+(:\d+)?$", "", where)


def param_facts(params: Mapping[str, int]) -> str:
    """Parameter overrides as facts, as both engines' params rules read them."""
    return "".join(f"param_override({k},{int(v)}).\n" for k, v in sorted(params.items()))


# ---- the session ---------------------------------------------------------------------------------


class Session:
    """One program on one engine: rule files, facts, then its ground results.

    clingo options: `tables` loads logic/core/tables.facts first (nearly every program reads it);
    `consts` are `-c name=value` constants; `warn` keeps clingo's warnings (to find undefined
    atoms with `problems(undefined=True)`); `failure` is the problem reported when grounding fails
    without a message that says why; `options` are further clingo options (OPTIMUM for programs
    with #minimize)."""

    def __init__(
        self,
        engine: str = "clingo",
        *,
        tables: bool = True,
        consts: Mapping[str, int] | None = None,
        warn: bool = False,
        message_limit: int = 20,
        failure: str | Problem = "clingo failed to ground the program",
        options: Sequence[str] = (),
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(engine)
        self.engine = engine
        self._failure = failure if isinstance(failure, Problem) else Problem(failure)
        self._text: list[str] = []
        self._data: dict[tuple[str, int], list[clingo.Symbol]] = {}
        self._files: list[Path] = []
        self._resident: list[Path] = []
        self._state = "open"  # open -> ground -> solved (clingo)
        self._model: list[clingo.Symbol] = []
        self._satisfiable = False
        self._log = _Log()
        self._ctl: clingo.Control | None = None
        if engine == "clingo":
            args = [] if warn else ["--warn=none"]
            args += [f"-c{k}={v}" for k, v in (consts or {}).items()] + list(options)
            self._ctl = clingo.Control(args, logger=self._log, message_limit=message_limit)
            if tables:
                self.load(SHARED_TABLES)
        elif consts:
            raise ValueError("constants are a clingo option")

    # -- building the program

    def load(self, *paths: Path, resident: bool = False) -> Session:
        """Add rule files. clingo parses them now; prolog loads them when a query needs them.
        `resident` (prolog): a module file that stays loaded beside every rule set."""
        self._open()
        for path in paths:
            if self._ctl is None:
                (self._resident if resident else self._files).append(Path(path))
                continue
            try:
                self._ctl.load(str(path))
            except RuntimeError:
                problems = clingo_problems(self._log)
                raise MetalogicError(
                    problems or [Problem("clingo could not load the file", where=display_path(Path(path)))]
                ) from None
        return self

    def add(self, program: str | Sequence[Fun]) -> Session:
        """Add program text, or facts given as terms: those reach clingo as data (symbols handed
        over while grounding), so no value from them is ever parsed as program text."""
        self._open()
        if isinstance(program, str):
            self._text.append(program)
            return self
        for f in program:
            # The name enters the program text (see _glue): a plain lower-case name only.
            if not isinstance(f, Fun) or not NAME.fullmatch(f.name):
                raise ValueError(f"not a fact to pass as data: {f!r}")
            self._data.setdefault((f.name, len(f.args)), []).append(symbol(f))
        return self

    def parse(self, text: str) -> None:
        """Parse program text into the clingo program now rather than when it is ground. For facts
        handed on while they are still being read (runs.ClingoStream calls it on a second
        thread: clingo parses without holding Python's lock)."""
        self._open()
        try:
            self._clingo().add("base", [], text)
        except RuntimeError:
            raise MetalogicError(clingo_problems(self._log) or [self._failure]) from None

    def add_printed(self, name: str, rows: Iterable[tuple[int, str]]) -> Session:
        """Add facts name(N, Term) as data, each term given as clingo prints it (an engine's result
        line): clingo's term parser reads it (a term, never a program: nothing in it can become a
        rule), about ten times faster than building the symbol from Python."""
        self._open()
        if not NAME.fullmatch(name):
            raise ValueError(f"not a predicate name: {name!r}")
        data = self._data.setdefault((name, 2), [])
        for n, term in rows:
            try:
                data.append(clingo.Function(name, [clingo.Number(n), clingo.parse_term(term)]))
            except RuntimeError:
                raise ValueError(f"not a term as clingo prints it: {term!r}") from None
        return self

    def add_lines(self, lines: Iterable[str]) -> Session:
        """Add facts given as clingo prints them (an engine's result lines) as data: each is read by
        clingo's term parser, never as program text."""
        self._open()
        for line in lines:
            try:
                sym = clingo.parse_term(line)
            except RuntimeError:
                raise ValueError(f"not a term as clingo prints it: {line!r}") from None
            if sym.type != clingo.SymbolType.Function or not NAME.fullmatch(sym.name) or not sym.arguments:
                raise ValueError(f"not a fact to pass as data: {line!r}")
            self._data.setdefault((sym.name, len(sym.arguments)), []).append(sym)
        return self

    def add_rows(self, name: str, arity: int, rows: list[clingo.Symbol]) -> Session:
        """Add facts name/arity as data, already made into symbols by whoever read them (as
        add_lines does; for rows handed to several programs, read once). Each must be a name/arity
        function: the glue rule takes only those, so any other is left out, never run."""
        self._open()
        if not NAME.fullmatch(name):
            raise ValueError(f"not a predicate name: {name!r}")
        self._data.setdefault((name, arity), []).extend(rows)
        return self

    def show(self, *signatures: tuple[str, int]) -> Session:
        """Show only these predicates (clingo shows every atom when nothing is shown)."""
        return self.add("".join(f"#show {name}/{arity}.\n" for name, arity in signatures))

    # -- clingo results

    def ground(self) -> Session:
        ctl = self._clingo()
        if self._state == "open":
            self._state = "ground"
            glue = "".join(_glue(name, n) for name, n in sorted(self._data))
            try:
                ctl.add("base", [], "".join(self._text) + glue)
                ctl.ground([("base", [])], context=_Input(self._data))
            except RuntimeError:
                raise MetalogicError(clingo_problems(self._log) or [self._failure]) from None
        return self

    def problems(self, *, undefined: bool = False) -> list[Problem]:
        """clingo's messages so far, as problems (with `undefined`: atoms nothing defines)."""
        return clingo_problems(self._log, undefined=undefined)

    def atoms(self) -> list[clingo.Symbol]:
        """Every atom of the ground program, without solving (for programs of facts)."""
        return [sa.symbol for sa in self.ground()._clingo().symbolic_atoms]

    def symbols(self) -> list[clingo.Symbol]:
        """The shown atoms of the first model (the only one of a stratified program); empty when
        there is none."""
        ctl = self.ground()._clingo()
        if self._state == "ground":
            self._state = "solved"

            def first(model: clingo.Model) -> bool:
                self._model = list(model.symbols(shown=True))
                return False  # one model is the answer

            self._satisfiable = bool(ctl.solve(on_model=first).satisfiable)
        return self._model

    def consequences(self, mode: str) -> list[clingo.Symbol]:
        """The shown atoms true in every optimal model (mode "cautious") or in some ("brave") of a
        program with #minimize: clingo enumerates the optimal models' consequences (optN)."""
        if mode not in ("cautious", "brave"):
            raise ValueError(mode)
        ctl = self.ground()._clingo()
        conf = ctl.configuration.solve
        conf.opt_mode, conf.enum_mode, conf.models = "optN", mode, "0"  # type: ignore[union-attr]
        found: list[Sequence[clingo.Symbol]] = [[]]

        def keep(model: clingo.Model) -> None:  # the last model holds the consequences
            # model.symbols() copies the model into a buffer of its own and makes a Python object of
            # a symbol only when it is read: keeping the sequence, only the last model is read.
            found[0] = model.symbols(shown=True)

        ctl.solve(on_model=keep)
        return list(found[0])

    @property
    def satisfiable(self) -> bool:
        self.symbols()
        return self._satisfiable

    def lines(self) -> set[str]:
        """The shown atoms as canonical text."""
        return {str(s) for s in self.symbols()}

    def rows(self, name: str, arity: int) -> set[str]:
        """The true atoms name/arity as canonical text (clingo's printing, on both engines)."""
        if self._ctl is None:
            with LOCK:  # (as on clingo, a predicate nothing defines has no rows)
                return self._prolog().rows(name, arity)
        return {str(s) for s in self.symbols() if s.name == name and len(s.arguments) == arity}

    # -- prolog results

    def check(self, program: str, detail: bool = True) -> dict[str, set[str]]:
        """The MR check of logic/core/driver.pl (`ml_run`) with this session's rule files on a
        facts program: its result lines by predicate, printed as clingo prints them. detail=False
        leaves out what only `check --out` writes."""
        with LOCK:
            return self._prolog().run_check(program, detail)

    def declarations(self) -> list[str]:
        """The MR declarations of this session's rule files, each as `fact @ file`."""
        with LOCK:
            return self._prolog().declarations()

    def undefined_calls(self, files: Sequence[Path]) -> list[Problem]:
        """Calls in `files` (among this session's rule files) to predicates nothing defines."""
        with LOCK:
            return self._prolog().undefined_calls(files)

    def call(self, module: str, predicate: str, facts: Sequence[Fun]) -> list[str] | None:
        """Call `module:predicate(Facts, Lines)` with the facts as a Prolog list built through the
        foreign interface (never as goal text); the lines, or None when the call fails."""
        with LOCK:
            self._prolog()
            return call_with_terms(module, predicate, facts)

    def _prolog(self) -> PrologEngine:
        """The shared engine with this session's files in; the caller holds LOCK."""
        if self._ctl is not None:
            raise ValueError("a clingo session")
        pl = PrologEngine()
        for path in self._resident:
            pl.load_resident(path)
        if self._files:
            pl.use_rules(self._files)
        return pl

    def _clingo(self) -> clingo.Control:
        if self._ctl is None:
            raise ValueError("a prolog session has no clingo program")
        return self._ctl

    def _open(self) -> None:
        if self._state != "open":
            raise ValueError("the program is already ground")


# ---- facts as data (clingo) ----------------------------------------------------------------------


def symbol(t: Term) -> clingo.Symbol:
    if isinstance(t, Fun):
        return clingo.Function(t.name, [symbol(a) for a in t.args])
    if isinstance(t, Str):
        return clingo.String(t)
    if isinstance(t, Atom):
        return clingo.Function(t)
    return clingo.Number(t)


class _Input:
    """The context of a grounding: `@input(Name, Arity)` gives the data facts of that predicate
    (whole symbols: the glue rule matches each against name(X1, ..., Xn))."""

    def __init__(self, rows: dict[tuple[str, int], list[clingo.Symbol]]) -> None:
        self.rows = rows

    def input(self, name: clingo.Symbol, arity: clingo.Symbol) -> list[clingo.Symbol]:
        return self.rows.get((name.string, arity.number), [])


def _glue(name: str, arity: int) -> str:
    """One rule per data predicate, `cand(X1,X2) :- cand(X1,X2) = @input("cand",2).`: only the
    predicate's name (checked in Session.add) and arity enter the program text."""
    xs = ",".join(f"X{i}" for i in range(1, arity + 1))
    return f'{name}({xs}) :- {name}({xs}) = @input("{name}",{arity}).\n'
