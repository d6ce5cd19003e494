% Exact comparison of fractions (the Prolog twin of fractions.lp). Prolog integers are unbounded,
% so cross-multiplying is exact; a test checks both engines agree on random fractions.

frac_lt(A, B, C, D) :- A * D < C * B.
