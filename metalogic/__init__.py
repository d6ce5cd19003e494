"""metalogic: metamorphic testing of spatial cognition, decided by clingo and SWI-Prolog.

The repository folders `engine/`, `logic/`, `extract/`, `agents/`, `memory/` and `app/` are
installed as subpackages of this package (see pyproject.toml), so `import metalogic.engine` works and
no generic top-level module is ever added to ``sys.path``.

The layers, each importing only those below it: engine (facts, schema, the rule engines, check) and
logic (the rule files) at the bottom; extract and agents on engine; memory on agents and engine;
app (the command line, run/demo, report, compare) on top of them all.
"""

__version__ = "0.1.0"
