"""Where answers go: an append-only journal, snapshotted into a facts file.

RUN_DIR/answers/<slug>.jsonl is the journal: a header line, then one JSON line per answer, each
flushed and fsync'd before the next question counts as answered. A run killed at any moment (even
kill -9) loses at most the line being written, which is cut off when the journal is opened again;
the next run skips every question the journal holds. RUN_DIR/answers/<slug>.lp (answer/3 and
raw_reply/3 facts) is rewritten from the journal by write-to-temp-then-rename, so it is always a
complete, readable facts file. The latest journal line for a question wins (retried invalid answers).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from metalogic.agents.base import Answer, Question
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path
from metalogic.engine.terms import RESERVED_ATOMS, Atom, ParseError, Str, Term, parse_term, quote, text
from metalogic.engine.whole_files import write_text_whole

MAX_RAW = 4000  # characters of a raw reply kept in the facts file (the journal keeps all of it)
MAX_NAME = 200  # characters of an agent name (it is on every line of the facts file)
_ATOM = re.compile(r"[a-z][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NAME_BAD = re.compile(r"[\x00-\x1f\x7f]")


def check_agent_name(name: str) -> str:
    """Refuse an agent name the facts file cannot hold as it is (a string with a control character
    would be rejected by the facts reader, and so by 'metalogic check')."""
    what = _name_problem(name)
    if what:
        raise MetalogicError.single(
            f"the agent name {name[:60]!r} {what}",
            expected=f"a name of 1 to {MAX_NAME} printable characters",
            fix="choose another name with --name",
        )
    return name


def _name_problem(name: str) -> str:
    if not name:
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long"
    bad = _NAME_BAD.search(name)
    return f"holds the control character {bad.group()!r}" if bad else ""


def agent_term(name: str) -> Term:
    """An agent name as a term: a plain atom when it is one (oracle), else a string ("openai:gpt-4o")."""
    return Atom(name) if _ATOM.fullmatch(name) and name not in RESERVED_ATOMS else Str(name)


def slug(name: str) -> str:
    """A file name for an agent name: 'openai:gpt-4o+cot' -> 'openai_gpt-4o+cot'."""
    s = re.sub(r"[^A-Za-z0-9.+-]+", "_", name).strip("._") or "agent"
    if len(s) > 80:
        import hashlib

        s = s[:60] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return s


class AnswerStore:
    """The answers of one agent in one run folder."""

    def __init__(
        self,
        answers_dir: Path,
        agent: str,
        fingerprint: dict[str, Any],
        questions: list[Question],
        restart: bool = False,
    ) -> None:
        self.agent, self.fingerprint = check_agent_name(agent), fingerprint
        self.term = agent_term(agent)
        self.questions = {q.key: q for q in questions}
        self.order = [q.key for q in questions]
        name = slug(agent)
        answers_dir.mkdir(parents=True, exist_ok=True)
        self.lp, self.manifest, self.journal = (
            answers_dir / f"{name}.lp",
            answers_dir / f"{name}.json",
            answers_dir / f"{name}.jsonl",
        )
        self._fh: IO[str] = self._open_locked()
        try:
            self._check_owner()  # before --restart, which must never discard another agent's answers
        except BaseException:
            self.close()
            raise
        if restart:
            self._fh.truncate(0)
            self.lp.unlink(missing_ok=True)
            self.manifest.unlink(missing_ok=True)
        self.records: dict[str, dict[str, Any]] = {}
        self.stale = 0
        self._read()
        self._last_snapshot = 0.0

    # opening -------------------------------------------------------------------------------------

    def _open_locked(self) -> IO[str]:
        fh = self.journal.open("a+", encoding="utf-8", errors="replace")  # a damaged byte is one bad line
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise MetalogicError.single(
                f"another 'metalogic ask' is writing {display_path(self.journal)}",
                expected="one ask per agent and run folder at a time",
                fix="wait for the other run to finish, or give this one another --name",
            ) from None
        return fh

    def _check_owner(self) -> None:
        """Agent names that differ but share a file name ('x y' and 'x_y') are refused up front,
        naming both, so that neither run reads, resumes or discards the other's answers."""
        with self.journal.open("rb") as fh:
            head = _record(fh.readline(1_000_000).decode("utf-8", errors="replace"))
        other = head.get("agent") if head else None
        if isinstance(other, str) and other != self.agent:
            raise MetalogicError.single(
                f"the agent names {self.agent!r} and {other!r} share the file name "
                f"'{self.journal.stem}': {display_path(self.journal)} holds the answers of {other!r}",
                expected="agent names that stay apart as file names",
                fix=f"give this run another --name (e.g. '{slug(self.agent)}-2'); the answers of "
                f"{other!r} are left as they are",
            )

    def _read(self) -> None:
        fh = self._fh
        fh.flush()
        raw = self.journal.read_bytes()
        if raw and not raw.endswith(b"\n"):  # a line cut off by a kill: drop it
            keep = raw.rfind(b"\n") + 1
            fh.truncate(keep)
            raw = raw[:keep]
        # bytes that are not UTF-8 (an edited or damaged line) make that line unreadable, not the file
        data = raw.decode("utf-8", errors="replace")
        lines = []
        # Lines end at '\n' only: str.splitlines() would also split at U+2028, U+0085 and form
        # feeds, which JSON keeps unescaped inside a reply, and every such answer would be lost.
        for line in data.split("\n"):
            rec = _record(line)
            if rec is not None:
                lines.append(rec)
        if not lines:
            self._append(
                {
                    "type": "header",
                    "agent": self.agent,
                    "fingerprint": self.fingerprint,
                    "created": time.time(),
                }
            )
            return
        head = lines[0]
        if head.get("agent") != self.agent or head.get("fingerprint") != self.fingerprint:
            old = head.get("fingerprint")
            old = old if isinstance(old, dict) else {}
            diff = sorted(k for k in {*old, *self.fingerprint} if old.get(k) != self.fingerprint.get(k))
            raise MetalogicError.single(
                f"{display_path(self.journal)} holds answers asked with other settings ({', '.join(diff)})",
                expected="the settings of the earlier run, to resume it",
                fix="repeat the earlier settings to resume, add --restart to discard those answers, or give "
                "this run another --name",
            )
        for rec in lines[1:]:
            qid = rec.get("qid")
            q = self.questions.get(qid) if isinstance(qid, str) else None
            if q is None or rec.get("content") != text(q.content) or rec.get("form") != text(q.form):
                self.stale += 1  # the question changed or is gone (the run folder was regenerated)
                continue
            if _sound(rec):  # a line edited by hand into something else is asked again
                self.records[q.key] = rec

    # writing -------------------------------------------------------------------------------------

    def _append(self, rec: dict[str, Any]) -> None:
        self._fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def add(self, answers: Iterable[Answer]) -> int:
        """Journal usable answers (failed requests are not answers); returns how many."""
        lines = []
        for a in answers:
            if a.value is None:
                continue
            q = a.question
            rec = {
                "type": "answer",
                "qid": q.key,
                "content": text(q.content),
                "form": text(q.form),
                "value": text(a.value),
                "raw": a.raw,
                "cached": a.cached,
                "prompt_tokens": a.prompt_tokens,
                "completion_tokens": a.completion_tokens,
                "cost_usd": a.cost_usd,
                "latency_s": round(a.latency_s, 4),
                "attempts": a.attempts,
                "note": a.note,
                "time": time.time(),
            }
            self.records[q.key] = rec
            lines.append(json.dumps(rec, ensure_ascii=False) + "\n")
        if lines:
            self._fh.write("".join(lines))
            self._fh.flush()
            os.fsync(self._fh.fileno())
        return len(lines)

    def snapshot(self, every_s: float = 0.0) -> bool:
        """Rewrite the facts file from the journal (at most every `every_s` seconds)."""
        now = time.monotonic()
        if every_s and now - self._last_snapshot < every_s:
            return False
        self._last_snapshot = now
        who = text(self.term)
        out = [
            f"% Answers of {who} to the questions in ../queries.lp, written by 'metalogic ask'.\n",
            f"% Settings, tokens and timings: {self.manifest.name}; every raw reply: {self.journal.name}.\n",
        ]
        for key in self.order:
            rec = self.records.get(key)
            if rec is None:
                continue
            out.append(f"answer({who}, {key}, {rec['value']}).\n")
            if rec["value"] == "invalid":
                out.append(f"raw_reply({who}, {key}, {quote(clean_raw(rec['raw']))}).\n")
        write_text_whole(self.lp, "".join(out), durable=True)
        return True

    def answered(self, retry_invalid: bool = False) -> set[str]:
        return {k for k, r in self.records.items() if not (retry_invalid and r["value"] == "invalid")}

    def close(self) -> None:
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        finally:
            self._fh.close()


def _sound(rec: dict[str, Any]) -> bool:
    """Does a journaled answer hold what the facts file and the manifest take from it? Its value
    goes into the facts file as it is, so it must be an answer value."""
    from metalogic.engine.schema import BY_KEY

    value = rec.get("value")
    try:
        term = parse_term(value) if isinstance(value, str) else None
    except ParseError:
        term = None
    numbers_ok = all(
        type(rec.get(k)) is int and rec[k] >= 0 for k in ("prompt_tokens", "completion_tokens", "attempts")
    ) and all(type(rec.get(k)) in (int, float) and math.isfinite(rec[k]) for k in ("latency_s",))
    cost = rec.get("cost_usd")
    return (
        term is not None
        and BY_KEY["answer/3"].args[2].type.check(term) is None
        and isinstance(rec.get("raw"), str)
        and numbers_ok
        and (cost is None or (type(cost) in (int, float) and math.isfinite(cost)))
    )


def _record(line: str) -> dict[str, Any] | None:
    """A journal line as a record; None for anything else (not ours to guess at: the question is
    asked again)."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or arrays nested past the recursion limit
        return None
    return rec if isinstance(rec, dict) else None


def clean_raw(raw: str) -> str:
    """A raw reply as a facts string: no control characters but newline and tab, at most MAX_RAW chars."""
    s = _CONTROL.sub(" ", raw.replace("\r\n", "\n"))
    return s if len(s) <= MAX_RAW else s[:MAX_RAW] + " [...]"
