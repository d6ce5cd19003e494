"""`metalogic generate`: scene facts in, queries and test cases out.

run (read, sample, write), combos (the candidate combinations, from logic/generate/) and files
(the facts files it writes).
"""
