"""metalogic: metamorphic testing of spatial cognition, decided by clingo and SWI-Prolog.

The repository folders `engine/`, `logic/`, `extract/`, `agents/` and `memory/` are installed as
subpackages of this package (see pyproject.toml), so `import metalogic.engine` works and no generic
top-level module is ever added to ``sys.path``.
"""

__version__ = "0.1.0"
