"""The MR check over agents' answers and what it leaves behind.

run (the check itself), writer and reader (its output folder), values (the answers beside their
truth), blame (which answers the violations point at), tables (result tables on disk and in the
terminal) and differential (the check on both engines, compared).
"""
