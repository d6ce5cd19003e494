% Direction algebra: sign arithmetic under each calculus, composition, inverse and quarter-turn rotation.
% The Prolog twin of algebra.lp; tests compare every table the two produce.

:- table universal/3, compose/4, inverse/3, rotate/4, move_compose/3, move_inverse/2.

sign(-1).
sign(0).
sign(1).
calculus_kind(exact).
calculus_kind(band).

% sign_add(Cal, X, Y, Z): Z is a possible sign of a+b when a has sign X and b has sign Y.
sign_add(exact, X, Y, Z) :- sign(X), sign(Y), S is X + Y, S =\= 0, Z is sign(S).
sign_add(exact, 0, 0, 0).
sign_add(exact, X, Y, Z) :- sign(X), X =\= 0, Y is -X, sign(Z).
sign_add(band, X, X, X) :- sign(X), X =\= 0.
sign_add(band, X, 0, Z) :- sign(X), X =\= 0, member(Z, [0, X]).
sign_add(band, 0, Y, Z) :- sign(Y), Y =\= 0, member(Z, [0, Y]).
sign_add(band, 0, 0, Z) :- sign(Z).
sign_add(band, X, Y, Z) :- sign(X), X =\= 0, Y is -X, sign(Z).

dir_value(V, N) :- dir_name(V, N, _, _, _).
zero_name(V, N) :- dir_name(V, N, 0, 0, 0).
vocab_size(V, K) :- calculus(V, _), aggregate_all(count, dir_value(V, _), K).
has_sectors(V) :- once(sector(V, _, _)).

% compose_in(Cal, V, N1, N2, N3): under calculus Cal, if A is N1 of B and B is N2 of D, A can be N3 of D.
compose_in(C, V, N1, N2, N3) :- calculus(V, _), calculus_kind(C),
    dir_name(V, N1, X1, Y1, Z1), dir_name(V, N2, X2, Y2, Z2),
    sign_add(C, X1, X2, X), sign_add(C, Y1, Y2, Y), sign_add(C, Z1, Z2, Z),
    dir_name(V, N3, X, Y, Z).
compose_in(star, V, N1, N2, N3) :- sector(V, N1, I), sector(V, N2, J),
    D is (J - I + 8) mod 8, star_between(D, I, K), sector(V, N3, K).
compose_in(star, V, N1, N2, N3) :- sector(V, N1, I), sector(V, N2, J),
    D is (J - I + 8) mod 8, D =:= 4, dir_value(V, N3).
compose_in(star, V, Z, N, N) :- has_sectors(V), zero_name(V, Z), dir_value(V, N).
compose_in(star, V, N, Z, N) :- has_sectors(V), zero_name(V, Z), dir_value(V, N), N \== Z.

% star_between(D, I, K): K is a sector on the shorter arc from I over D sectors clockwise (D < 4)
% or 8 - D sectors counter-clockwise (D > 4).
star_between(D, I, K) :- D < 4, between(0, D, S), K is (I + S) mod 8.
star_between(D, I, K) :- D > 4, M is 8 - D, between(0, M, S), K is (I - S + 8) mod 8.

% compose(V, N1, N2, N3): composition under the calculus the vocabulary declares.
compose(V, N1, N2, N3) :- calculus(V, C), compose_in(C, V, N1, N2, N3).

% universal(V, N1, N2): the composition allows every relation, so it tests nothing.
universal(V, N1, N2) :- calculus(V, C), dir_value(V, N1), dir_value(V, N2), vocab_size(V, K),
    aggregate_all(count, N3, distinct(N3, compose_in(C, V, N1, N2, N3)), K).

% inverse(V, N, M): if A is N of B, then B is M of A.
inverse(V, N, M) :- dir_name(V, N, X, Y, Z), X1 is -X, Y1 is -Y, Z1 is -Z, dir_name(V, M, X1, Y1, Z1).

% rotate(V, R, N, M): the vector N turned R quarter turns counter-clockwise (seen from above) is M.
rotate(V, 0, N, N) :- dir_value(V, N).
rotate(V, R, N, M) :- between(1, 3, R), R0 is R - 1, rotate(V, R0, N, P),
    dir_name(V, P, X, Y, Z), X1 is -Y, dir_name(V, M, X1, X, Z).

move_value(move(T, R)) :- dir_value(move, T), turn(R, _).

% move_compose(M1, M2, M): doing M1 then M2 can be the single move M (the second translation is
% rotated back by the first turn into the starting frame).
move_compose(move(T1, R1), move(T2, R2), move(T, R)) :- move_value(move(T1, R1)), move_value(move(T2, R2)),
    turn(R1, Q1), turn(R2, Q2), Q is (Q1 + Q2) mod 4, turn(R, Q),
    rotate(move, Q1, T2, T2r), compose(move, T1, T2r, T).

% move_inverse(M, N): going back from the end of M to its start is N.
move_inverse(move(T, R), move(Tb, Rb)) :- move_value(move(T, R)), turn(R, Q), Qb is (4 - Q) mod 4,
    turn(Rb, Qb), inverse(move, T, Ti), rotate(move, Qb, Ti, Tb).

% map_miss(N, LL, LH, FL, FH): no point of the level box LL..LH east, FL..FH north (cm) lies in the
% 45-degree cone of the map name N (for eq: the box leaves out the origin by more than a cm); see
% algebra.lp. The box is turned R quarter turns counter-clockwise so that the cone K = 2R + E
% becomes E (n or ne).
map_miss(eq, LL, LH, FL, FH) :- !, ( LL > 1 ; LH < -1 ; FL > 1 ; FH < -1 ), !.
map_miss(N, LL, LH, FL, FH) :- sector(map, N, K), R is K // 2, E is K mod 2,
    map_turned(R, LL, LH, FL, FH, L1, L2, F1, F2), once(map_misses(E, L1, L2, F1, F2)).
map_turned(0, LL, LH, FL, FH, LL, LH, FL, FH).
map_turned(R, LL, LH, FL, FH, L1, L2, F1, F2) :- R > 0, R1 is R - 1,
    map_turned(R1, LL, LH, FL, FH, M1, M2, G1, G2), L1 is -G2, L2 is -G1, F1 = M1, F2 = M2.
map_ge(X, Y) :- X >= 0, Y =< 0, !.
map_ge(X, Y) :- X > 0, Y > 0, !, 1000 * X >= 415 * Y.
map_ge(X, Y) :- X < 0, Y < 0, -1000 * X =< -414 * Y.
map_misses(0, _, _, _, FH) :- FH =< 0, !.
map_misses(0, LL, _, _, FH) :- map_ge(LL, FH), !.
map_misses(0, _, LH, _, FH) :- X is -LH, map_ge(X, FH), !.
map_misses(1, _, LH, _, _) :- LH =< 0, !.
map_misses(1, _, _, _, FH) :- FH =< 0, !.
map_misses(1, _, LH, FL, _) :- X is -LH, Y is -FL, map_ge(X, Y), !.
map_misses(1, LL, _, _, FH) :- X is -FH, Y is -LL, map_ge(X, Y).
