"""The one place that drives the engines.

api (Session: one interface over clingo and the embedded SWI-Prolog) and runs (an engine run:
rules, facts and parameters in, result lines out, on either engine).
"""

# The engines, named once (here, where naming them imports neither engine): every choice reads these.
ENGINES = ("clingo", "prolog")
ENGINE_CHOICES = (*ENGINES, "both")  # "both": run each and require the same result lines
