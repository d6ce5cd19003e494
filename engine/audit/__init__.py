"""`metalogic audit`: what the MRs are worth, decided on generated worlds.

run (all parts), soundness, completeness, tightness and redundancy, worlds (the generated worlds),
verdicts and report (their rows and tables), random_facts (random worlds for engine agreement).
"""
