"""`metalogic run CONFIG.toml` and `metalogic demo`: the whole evaluation in one command.

Stages: worlds (simulate or import) -> extract -> generate -> ask (one stage per agent) -> check
-> report. Each stage has a key (app/stagekeys.py): a hash of its own configuration and of the keys
of the stages it reads. A stage whose recorded key matches and whose outputs exist is skipped, so
re-running an unchanged configuration does no work and changing one agent re-asks only that agent.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import click

from metalogic.app.runconfig import AgentEntry, RunConfig, World
from metalogic.app.stagefiles import OWNED, foreign, keep_from_aside, listed, restore, set_aside
from metalogic.app.stagekeys import code_hash, detector_hash, rules_hash, stage_key, tree_hash
from metalogic.engine.errors import MetalogicError

STATE_DIR = ".metalogic"
# A stage's folder, and the subfolders in it that belong to other stages (the ask stages' answers).
FOLDERS = {
    "trajectories": "trajectories",
    "extract": "facts",
    "generate": "questions",
    "check": "check",
    "report": "report",
}
OTHERS = {"generate": ["answers"]}


@dataclass
class StageOutcome:
    name: str
    status: str  # ran | up to date
    seconds: float
    detail: str


@dataclass
class RunOutcome:
    config: RunConfig
    stages: list[StageOutcome] = field(default_factory=list)
    report: Path | None = None

    @property
    def ran(self) -> list[str]:
        return [s.name for s in self.stages if s.status == "ran"]


class Runner:
    def __init__(self, cfg: RunConfig, say: Callable[[str], None]) -> None:
        self.cfg, self.say = cfg, say
        self.out = cfg.out
        self.state = self.out / STATE_DIR
        self.outcome = RunOutcome(cfg)
        self._pending_folders: list[str] | None = None
        self._written: dict[str, list[str]] = {}  # stage -> the files it wrote (relative to its folder)
        self._answer_files: set[str] = set()

    # -- bookkeeping ---------------------------------------------------------------------------
    def _record(self, stage: str) -> dict[str, Any]:
        path = self.state / f"{stage}.json"
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        return record if isinstance(record, dict) else {}

    def _own_folders(self, record: dict[str, Any], root: Path) -> list[str]:
        """The folder names a world's record lists, kept only when each is a plain name of a folder
        directly inside `root` (the record is a file anyone can edit: '../..' never leads out)."""
        names = record.get("folders", [])
        if not isinstance(names, list):
            return []
        return [
            n
            for n in names
            if isinstance(n, str)
            and n not in ("", ".", "..")
            and Path(n).name == n
            and "\0" not in n
            and (root / n).resolve().parent == root.resolve()
        ]

    def stage(self, name: str, key: str, outputs: list[Path], action: Callable[[dict[str, Any]], str]) -> str:
        """Run `action` unless the stage's recorded key matches and its outputs exist."""
        old = self._record(name)
        if old.get("key") == key and all(p.exists() for p in outputs):
            self.outcome.stages.append(StageOutcome(name, "up to date", 0.0, old.get("detail", "")))
            self.say(f"{name}: up to date")
            return key
        self.say(f"{name}: running")
        t0 = time.perf_counter()
        detail = action(old)
        secs = time.perf_counter() - t0
        self._save(name, {"key": key, "detail": detail, "seconds": round(secs, 2), "finished": time.time()})
        self.outcome.stages.append(StageOutcome(name, "ran", secs, detail))
        return key

    def _mark_folder(self, stage: str, folder: Path) -> None:
        """Create `folder` (if missing) and mark it as the run's own (checked by check_folder before
        any stage ran)."""
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / OWNED).exists():
            (folder / OWNED).write_text(
                f"Written by 'metalogic run' ({stage} stage): what it holds is replaced whenever that "
                "stage runs again.\n",
                encoding="utf-8",
            )

    def check_folder(self, stage: str, folder: Path) -> None:
        """Refuse a stage folder that holds files the run did not write: before any stage runs, so
        that nothing is deleted."""
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise MetalogicError.single(
                f"{folder} is not a folder that 'metalogic run' can write its {stage} stage into",
                where=str(self.cfg.path),
                expected="a missing folder, an empty one, or one an earlier run wrote",
                fix=f"move {folder} away, or set out = ... to another folder",
            )
        if folder.exists():
            records = [r for r in (self._record(s) for s in self._stages_of(stage)) if r]
            ours = (folder / OWNED).exists() or bool(records)
            bad = foreign(folder, records, OTHERS.get(stage, [])) if records else []
            if bad:
                label = "world stages" if stage == "trajectories" else f"{stage} stage"
                more = (
                    f" (and {len(bad) - 1} more file{'s' if len(bad) > 2 else ''} there)"
                    if len(bad) > 1
                    else ""
                )
                raise MetalogicError.single(
                    f"{folder / bad[0]} is not a file 'metalogic run' wrote{more}; the {label} "
                    f"replace{'' if stage == 'trajectories' else 's'} the files in {folder.name}/ when "
                    f"{'they run' if stage == 'trajectories' else 'it runs'} again",
                    where=str(self.cfg.path),
                    expected=f"in {folder.name}/ only the files the {label} wrote (listed in {STATE_DIR}/)",
                    fix=f"move {folder / bad[0]} out of {folder}, or set out = ... to another folder",
                )
            if not ours and any(folder.iterdir()):
                raise MetalogicError.single(
                    f"{folder} holds files that 'metalogic run' did not write; the "
                    f"{'world stages' if stage == 'trajectories' else stage + ' stage'} would replace them",
                    where=str(self.cfg.path),
                    expected=f"a missing or empty {folder.name}/ folder, or one an earlier run wrote",
                    fix=f"move your files out of {folder}, or set out = ... to another folder",
                )

    def _stages_of(self, stage: str) -> list[str]:
        """The stage records that show `stage`'s folder was written by an earlier run (one made
        before folders were marked): the trajectories belong to the world stages."""
        if stage != "trajectories":
            return [stage]
        listed_ = sorted(p.stem for p in self.state.glob("world-*.json")) if self.state.is_dir() else []
        return list(dict.fromkeys([*(f"world-{w.name}" for w in self.cfg.worlds), *listed_]))

    def check_out(self) -> None:
        """The output folder must be a folder (or missing, under a folder)."""
        for p in (self.out, *self.out.parents):
            if p.exists() and not p.is_dir():
                raise MetalogicError.single(
                    f"the run's output folder {self.out} cannot be made: {p} is a file",
                    where=str(self.cfg.path),
                    expected="out = a folder (missing, empty, or one an earlier run wrote)",
                    fix="set out = ... to a folder path",
                )
            if p.exists():
                break
        if self.state.exists() and (self.state.is_symlink() or not self.state.is_dir()):
            raise MetalogicError.single(
                f"{self.state} is not the folder where 'metalogic run' keeps its stage records",
                where=str(self.cfg.path),
                expected=f"{STATE_DIR}/ a folder an earlier run wrote, or nothing",
                fix=f"move {self.state} away, or set out = ... to another folder",
            )

    def check_rules(self) -> None:
        """The check's rule folders, MR selection and parameters, read now: a mistake there is
        reported before any stage runs, not after the agents were asked."""
        from metalogic.engine.check.run import resolve_params
        from metalogic.engine.rules.loader import load_ruleset, select_mrs

        check = self.cfg.check
        for d in check.get("rules", []):
            if not (self.cfg.path.resolve().parent / d).is_dir():
                raise MetalogicError.single(
                    f"the rule folder '{d}' does not exist",
                    where=str(self.cfg.path),
                    expected="rules = [...] naming folders of MR rule files, relative to the configuration",
                    fix="fix the folder name in rules = [...] under [check]",
                )
        try:
            engine = str(check.get("engine", "both"))
            rules = select_mrs(load_ruleset(self._rules_dirs(), engine=engine), check.get("mrs", "all"))
            resolve_params(rules, _const_settings(check))
        except MetalogicError as err:
            first = err.problems[0]
            raise MetalogicError.single(
                f"[check]: {first.what}",
                where=first.where or str(self.cfg.path),
                expected=first.expected,
                fix=first.fix,
            ) from None

    # -- stages --------------------------------------------------------------------------------
    def worlds(self) -> list[str]:
        keys = []
        traj_root = self.out / "trajectories"
        for w in self.cfg.worlds:
            parts: dict[str, Any] = {"world": w.describe()}
            if w.source:
                src = (self.cfg.path.resolve().parent / w.path).resolve()
                if not src.exists():
                    raise MetalogicError.single(
                        f"world '{w.name}': import source '{w.path}' does not exist",
                        where=str(self.cfg.path),
                        expected="an existing file or folder",
                        fix="fix path = ... in the [[world]] table",
                    )
                parts["source"] = tree_hash(src)
            key = stage_key(parts)
            made = self._own_folders(self._record(f"world-{w.name}"), traj_root)
            keys.append(
                self.stage(
                    f"world-{w.name}",
                    key,
                    [traj_root / f for f in made] or [traj_root / "missing"],
                    functools.partial(self._make_world, w, traj_root),
                )
            )
        return keys

    def _make_world(self, w: World, traj_root: Path, old: dict[str, Any]) -> str:
        # the world changed: what it made before goes once it is made again (and stays if that fails)
        own = [traj_root / f for f in self._own_folders(old, traj_root)]
        with set_aside(self.state, f"world-{w.name}", own, watch=traj_root):
            return self._simulate_or_import(w, traj_root)

    def _simulate_or_import(self, w: World, traj_root: Path) -> str:
        self._mark_folder("trajectories", traj_root)
        if w.scenario:
            from metalogic.extract.simulate import parse_size, simulate_episodes

            width, height = parse_size(w.size)
            paths = simulate_episodes(
                w.scenario,
                episodes=w.episodes,
                steps=w.steps,
                seed=w.seed,
                out=traj_root,
                width=width,
                height=height,
            )
        else:
            from metalogic.extract import importers

            src = (self.cfg.path.resolve().parent / w.path).resolve()
            if w.source == "frames":
                paths = [importers.import_frames(src, traj_root, traj_id=w.name)]
            elif w.source == "video":
                paths = [importers.import_video(src, traj_root, traj_id=w.name)]
            else:
                paths = importers.import_eb_nav(src, traj_root, prefix=w.name)
        folders = sorted(p.name for p in paths)
        # remembered for the next run, so that a changed world replaces exactly its own folders
        self._pending_folders = folders
        self._written[f"world-{w.name}"] = [f"{d}/{f}" for d in folders for f in listed(traj_root / d)]
        return f"{len(folders)} trajectories: {', '.join(folders)}"

    def _save(self, stage: str, record: dict[str, Any]) -> None:
        if stage.startswith("world-") and self._pending_folders is not None:
            record["folders"] = self._pending_folders
            self._pending_folders = None
        if stage.startswith("ask-"):
            record["files"] = sorted(self._answer_files)
            self._answer_files.clear()
        if stage in self._written:
            record["files"] = self._written.pop(stage)
        self.state.mkdir(parents=True, exist_ok=True)
        tmp = self.state / f".{stage}.json.tmp"
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True))
        tmp.replace(self.state / f"{stage}.json")

    def extract(self, world_keys: list[str]) -> str:
        cfg = self.cfg.extract
        base = self.cfg.path.resolve().parent
        key = stage_key(
            {
                "extract": cfg,
                "worlds": world_keys,
                "weights": detector_hash(cfg.get("detector"), base),
                "code": code_hash("metalogic.extract"),
            }
        )
        facts = self.out / "facts"

        def act(_old: dict[str, Any]) -> str:
            from metalogic.extract.pipeline import run_extract
            from metalogic.extract.tracking import DETECTORS

            opts: dict[str, Any] = {}
            if cfg.get("detector") not in (None, "default"):
                det = str(cfg["detector"])
                named = det == "gt" or det in DETECTORS  # names pass as they are; paths are the config's
                opts["detector"] = det if named else str((self.cfg.path.resolve().parent / det).resolve())
            if "conf" in cfg:
                opts["conf"] = float(cfg["conf"])
            if "imgsz" in cfg:
                opts["imgsz"] = int(cfg["imgsz"])
            with set_aside(self.state, "extract", [facts]):  # a failing extract keeps the old facts
                self._mark_folder("extract", facts)
                res = run_extract(self.out / "trajectories", facts, **opts)
            self._written["extract"] = listed(facts)
            return f"{len(res.facts)} facts files, {res.detections} detections"

        return self.stage("extract", key, [facts], act)

    def generate(self, extract_key: str) -> str:
        cfg = self.cfg.generate
        key = stage_key({"generate": cfg, "extract": extract_key, "rules": rules_hash([], Path("."))})
        questions = self.out / "questions"

        def act(_old: dict[str, Any]) -> str:
            from metalogic.engine.generate import run as gen

            # a failing generate keeps the old questions and every agent's answers; one that succeeds
            # keeps the answers too (the ask stages, whose keys changed, ask again)
            with set_aside(self.state, "generate", [questions]):
                self._mark_folder("generate", questions)
                res = gen.generate(
                    self.out / "facts",
                    questions,
                    scs=cfg.get("sc", []),
                    max_per_trajectory=cfg.get("max_per_trajectory", gen.DEFAULT_MAX_PER_TRAJECTORY),
                    seed=int(cfg.get("seed", gen.DEFAULT_SEED)),
                    strategy=cfg.get("strategy", gen.DEFAULT_STRATEGY),
                )
                keep_from_aside(self.state, "generate", questions, OTHERS["generate"])
            self._written["generate"] = listed(questions, OTHERS["generate"])
            return f"{len(res.queries)} queries, {res.total_cases} test cases"

        return self.stage("generate", key, [questions / "queries.lp"], act)

    def ask(self, gen_key: str) -> list[str]:
        keys = []
        for a in self.cfg.agents:
            key = stage_key(
                {
                    "agent": {"spec": a.spec, "prompting": a.prompting, "limit": a.limit, **a.settings},
                    "generate": gen_key,
                }
            )
            keys.append(self.stage(f"ask-{self._slug(a)}", key, [], functools.partial(self._ask, a)))
        return keys

    @staticmethod
    def _slug(a: AgentEntry) -> str:
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in a.name)

    def _ask(self, a: AgentEntry, old: dict[str, Any]) -> str:
        asked_before = bool(old)  # a changed agent starts over; a crashed first run resumes
        from metalogic.agents.model import GenParams
        from metalogic.agents.registry import AgentSettings
        from metalogic.agents.runner import ask

        s = dict(a.settings)
        params = GenParams(
            temperature=float(s.pop("temperature", 0.0)),
            top_p=float(s.pop("top_p", 0.9)),
            max_tokens=int(s.pop("max_tokens", 512)),
        )
        settings = AgentSettings(
            prompting=a.prompting,
            params=params,
            name=s.pop("name", None),
            view=s.pop("view", "auto"),
            concurrency=s.pop("concurrency", None),
            base_url=s.pop("base_url", None),
            seed=int(s.pop("seed", 0)),
            structured=s.pop("structured", "auto"),
            options={k: str(v) for k, v in s.pop("options", {}).items()},
        )
        res = ask(
            self.out / "questions", a.spec, settings, restart=asked_before, limit=a.limit, progress=None
        )
        self._answer_files.update({res.facts.name, res.manifest.name})
        return f"{res.answered} answered ({res.cached} from cache, {res.invalid} invalid) of {res.questions}"

    def retire_answers(self) -> None:
        """Answers of agents no longer in the configuration leave the run (kept in retired-answers/,
        outside the folder the check reads), so the check and report show the configured agents."""
        answers = self.out / "questions" / "answers"
        if not answers.is_dir():
            return
        keep = set(self._answer_files)
        for a in self.cfg.agents:
            keep.update(self._record(f"ask-{self._slug(a)}").get("files", []))
        stems = {Path(k).stem for k in keep}
        for f in sorted(answers.iterdir()):
            if f.is_file() and f.suffix in (".lp", ".json", ".jsonl") and f.stem not in stems:
                retired = self.out / "retired-answers"
                retired.mkdir(exist_ok=True)
                f.replace(retired / f.name)
                self.say(f"retired {f.name}: its agent is no longer in the configuration")

    def check(self, gen_key: str, ask_keys: list[str]) -> str:
        from metalogic.engine.check.layout import FORMAT, MANIFEST

        cfg = self.cfg.check
        rules = rules_hash(list(cfg.get("rules", [])), self.cfg.path.resolve().parent)
        key = stage_key(
            {"check": cfg, "generate": gen_key, "asks": ask_keys, "rules": rules, "output": FORMAT}
        )
        out = self.out / "check"

        def act(_old: dict[str, Any]) -> str:
            from metalogic.engine.check.run import run_check
            from metalogic.engine.check.writer import make_request, write_check_output

            settings = _const_settings(cfg)
            engine, mrs = cfg.get("engine", "both"), cfg.get("mrs", "all")
            questions = str(self.out / "questions")
            res = run_check(
                questions, engine=engine, rules_dirs=self._rules_dirs(), settings=settings, mrs=mrs
            )
            if res.warnings:
                click.echo(res.warnings, err=True)
            request = make_request(engine, mrs, settings, self._rules_dirs())
            with set_aside(self.state, "check", [out]):
                self._mark_folder("check", out)
                write_check_output(res, out, ["csv", "json"], request, questions)
            self._written["check"] = listed(out)
            return f"{res.rows.case_count} test cases, {res.rows.violation_count} violations"

        return self.stage("check", key, [out / "scores.csv", out / MANIFEST], act)

    def _rules_dirs(self) -> list[str]:
        """The check's extra MR folders, relative to the configuration file."""
        return [str(self.cfg.path.resolve().parent / d) for d in self.cfg.check.get("rules", [])]

    def report(self, check_key: str) -> Path | None:
        if not self.cfg.report:
            return None
        path = self.out / "report" / "report.html"
        key = stage_key({"report": True, "check": check_key, "engine": self.cfg.check.get("engine", "both")})

        def act(_old: dict[str, Any]) -> str:
            from metalogic.app.report import build_report, write_report

            rep = build_report(str(self.out / "check"))  # what the check stage wrote: no engine runs again
            with set_aside(self.state, "report", [path.parent]):
                self._mark_folder("report", path.parent)
                written = write_report(rep, path)
            self._written["report"] = listed(path.parent)
            return f"{len(written)} files"

        self.stage("report", key, [path], act)
        return path


def _const_settings(check: dict[str, Any]) -> list[str]:
    """[check] const = { eps = 0.00001 } as -c settings, written as plain decimals (str() would write
    1e-05, which the check refuses)."""
    from decimal import Decimal

    return [f"{k}={format(Decimal(repr(v)), 'f')}" for k, v in check.get("const", {}).items()]


def run_pipeline(cfg: RunConfig, say: Callable[[str], None] = lambda _m: None) -> RunOutcome:
    r = Runner(cfg, say)
    r.check_out()
    for stage in restore(r.state, r.out):  # a stage killed while it ran: its old outputs come back
        say(f"{stage}: put back the outputs of its interrupted run")
    for stage, folder in FOLDERS.items():
        if stage != "report" or cfg.report:
            r.check_folder(stage, r.out / folder)  # before anything runs, not halfway through
    r.check_rules()
    world_keys = r.worlds()
    extract_key = r.extract(world_keys)
    gen_key = r.generate(extract_key)
    ask_keys = r.ask(gen_key)
    r.retire_answers()
    check_key = r.check(gen_key, ask_keys)
    r.outcome.report = r.report(check_key)
    return r.outcome


def demo_config_text() -> str:
    return (resources.files("metalogic.app") / "demo.toml").read_text(encoding="utf-8")
