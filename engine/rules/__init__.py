"""Rule files as the engines get them.

loader (an MR set: the core, the chosen MRs, their parameters), syntax (what a clingo file defines
and reads), entries (rule programs named by files of includes) and declarations (each MR's
`NAME.decl`, read as data).
"""
