% MR11 move consistency: a move must fit how the view changed. A still object seen in both frames,
% placed at the agent's own depth answers, shows where the camera went: its place in the first
% frame minus its place in the second (turned back by the answered turn) is the camera's
% displacement, which must have the answered direction (and length, for move_dist).
:- include('mr11_move_view.decl').

mr11_shared(T, S1, S2, O, D1, D2) :- agent_camera(T), depth_query(D1, T, S1, O), depth_query(D2, T, S2, O),
    S1 \== S2, once(obs_span(T, S1, O, _, _, _, _)), once(obs_span(T, S2, O, _, _, _, _)),
    once(obs_pitch(T, S1, _, _)), once(obs_pitch(T, S2, _, _)).
:- discontiguous mr11_why/3.
:- table mr11_dc/5, mr11_at/9, mr11_noise/6.
mr11_move(Q, move_dir, T, S1, S2) :- query(Q, move_dir(T, S1, S2)).
mr11_move(Q, move_dist, T, S1, S2) :- query(Q, move_dist(T, S1, S2)).
% One case per move answer; each object seen whole in both frames is one view mr11(Q, O) of it, and
% one view that contradicts the answer breaks the case (see mr11_move_view.lp).
testcase(mr11(Q), mr11, SC) :- mr11_move(Q, _, T, S1, S2), once(mr11_shared(T, S1, S2, _, _, _)), query_sc(Q, SC).
case_query(mr11(Q), X) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, _, D1, D2), member(X, [Q, D1, D2]).
case_support(mr11(Q), Qm) :- mr11_move(Q, move_dist, T, S1, S2), move_query(Qm, move_dir, T, S1, S2).
case_support(mr11(Q), Qs) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, O, _, _), any_object_query(Qs, size, T, _, O).
mr11_view(Q, mr11(Q, O)) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, O, _, _).

% The turn the agent answered; a distance takes the turn of the agent's own move_dir answer over the
% same states, or else every quarter turn (all must break the law).
mr11_turn(Ag, mr11(Q, _), R) :- move_answer(Ag, Q, move(_, N)), turn(N, R).
mr11_turn(Ag, mr11(Q, _), R) :- mr11_move(Q, move_dist, T, S1, S2), mag_answer(Ag, Q, _),
    ( move_query(Qm, move_dir, T, S1, S2), move_answer(Ag, Qm, move(_, N))
    -> turn(N, R)
    ;  between(0, 3, R)
    ).

% The depth an object is placed at: the answered depth, raised to the least depth at which an object
% of the agent's own answered size looks as small as its box (see mr11_move_view.lp).
mr11_dc(Ag, T, S, O, D) :- place(Ag, T, S, O, _, _, _, _, Dc),
    findall(F, mr11_floor(Ag, T, S, O, Dc, F), Fs), max_list([Dc|Fs], D).
mr11_floor(Ag, T, S, O, Dc, F) :- level(Ag, T, S, O, _, _, FL, _, _, _), FL > 0, FL =< 100000,
    once(obs_whole(T, S, O, _, Y1, _, Y2)), camera(T, _, Fy, _, _), obs_slack(T, K), param(pinhole_slack_permille, P),
    mr11_size(Ag, T, O, Hc), G is Fy * Hc // (Y2 - Y1 + 1 + 2 * K), G =< 1000000,
    F is G * (FL * 1000 // Dc) // (1000 + P).
mr11_size(Ag, T, O, Hc) :- any_object_query(Q, size, T, _, O), mag_answer(Ag, Q, HS), HS > 0, HS =< 100000, Hc is (HS + 5) // 10.

% The centre for the corner (A, B) of where it may lie within the box, levelled, in cm.
mr11_at(Ag, T, S, O, A, B, X, F, Z) :- detection(T, S, O, _, _, X1, Y1, X2, Y2), camera(T, Fx, Fy, Cx, Cy),
    mr11_dc(Ag, T, S, O, Dc), obs_pitch(T, S, C, Sn), member(A, [0, 1]), member(B, [0, 1]),
    X is (X1 + A * (X2 - X1 + 1) - Cx) * Dc // Fx, Y is (Cy - Y1 - B * (Y2 - Y1 + 1)) * Dc // Fy,
    F is (Dc * C - Y * Sn) // 1000, Z is (Dc * Sn + Y * C) // 1000.
% The slack of a placement per axis (see mr11_move_view.lp).
mr11_noise(Ag, T, S, O, I, N) :- detection(T, S, O, _, _, X1, Y1, X2, Y2), camera(T, Fx, Fy, _, _), obs_slack(T, K),
    param(centre_drift_permille, M), P is 2 * K + 1 + M * (X2 - X1 + Y2 - Y1 + 2) // 1000,
    mr11_dc(Ag, T, S, O, Dc), param(depth_round_mm, R),
    ( I == x -> N is P * Dc // Fx + 1 ; N is (P * Dc // Fy) * 3 // 2 + 2 + (R + 9) // 10 ).
mr11_rot(0, X, F, X, F).
mr11_rot(R, X, F, X1, F1) :- R > 0, R0 is R - 1, mr11_rot(R0, X, F, Y, G), X1 is -G, F1 = Y.
mr11_corner(Ag, mr11(Q, O), R, x, V) :- mr11_move(Q, _, T, S1, S2), mr11_at(Ag, T, S1, O, A, B, X1, _, _),
    mr11_at(Ag, T, S2, O, A, B, X2, F2, _), mr11_rot(R, X2, F2, X2r, _), V is X1 - X2r.
mr11_corner(Ag, mr11(Q, O), R, f, V) :- mr11_move(Q, _, T, S1, S2), mr11_at(Ag, T, S1, O, A, B, _, F1, _),
    mr11_at(Ag, T, S2, O, A, B, X2, F2, _), mr11_rot(R, X2, F2, _, F2r), V is F1 - F2r.
mr11_corner(Ag, mr11(Q, O), _, z, V) :- mr11_move(Q, _, T, S1, S2), mr11_at(Ag, T, S1, O, A, B, _, _, Z1),
    mr11_at(Ag, T, S2, O, A, B, _, _, Z2), V is Z1 - Z2.
mr11_part(Ag, C, R, I, L, H) :- C = mr11(Q, O), mr11_move(Q, _, T, S1, S2), member(I, [x, f, z]),
    mr11_noise(Ag, T, S1, O, I, N1), mr11_noise(Ag, T, S2, O, I, N2),
    findall(V, mr11_corner(Ag, C, R, I, V), Vs), Vs \== [], min_list(Vs, L0), max_list(Vs, H0),
    L is L0 - N1 - N2, H is H0 + N1 + N2.

mr11_why(Ag, C, move_against_view) :- once((C = mr11(Q, _), move_answer(Ag, Q, move(N, _)), dir_name(move, N, SX, SF, SZ),
    mr11_turn(Ag, C, R), param(truth_move_tol_mm, W),
    member(I-Sg, [x-SX, f-SF, z-SZ]), mr11_part(Ag, C, R, I, L, H), mr11_sign_off(Sg, L, H, W))).
mr11_why(Ag, C, depth_against_view) :- once((C = mr11(Q, O), mr11_turn(Ag, C, _), mr11_move(Q, _, T, S1, S2),
    obs_whole(T, S1, O, _, Y1, _, Y2), obs_whole(T, S2, O, _, Z1, _, Z2), H1 is Y2 - Y1 + 1, H2 is Z2 - Z1 + 1,
    depth_of(Ag, T, S1, O, D1), depth_of(Ag, T, S2, O, D2), D1 =< 200000, D2 =< 200000, H1 =< 5000, H2 =< 5000,
    obs_slack(T, K), param(scale_tol_permille, M),
    W is max(H1, H2) * max(D1, D2) // 1000 * M + (2 * K + 1) * (D1 + D2), abs(H1 * D1 - H2 * D2) > W)).
mr11_sign_off(1, _, H, W) :- 10 * H =< W.
mr11_sign_off(-1, L, _, W) :- 10 * L >= -W.
mr11_sign_off(0, L, H, W) :- ( 10 * L > W ; 10 * H < -W ), !.

mr11_sums(Ag, C, R, Lo, Hi, M, LoF, HiF) :- findall(I-(L-H), mr11_part(Ag, C, R, I, L, H), Parts), Parts \== [],
    foldl(mr11_add, Parts, 0-0-0-0-0, Lo-Hi-M-LoF-HiF).
mr11_add(_-(L-H), Lo0-Hi0-M0-LF0-HF0, Lo-Hi-M-LF-HF) :- ivl_min_abs(L, H, A), ivl_max_abs(L, H, B),
    Lo is Lo0 + A * A, Hi is Hi0 + B * B, M is max(M0, B), LF is max(LF0, A), HF is HF0 + B.
mr11_why(Ag, C, distance_against_view) :- once((C = mr11(Q, _), query(Q, move_dist(T, _, _)), mag_answer(Ag, Q, N),
    N =< 10000, step_mm(T, Mm), S is (Mm + 5) // 10, S =< 10000, A is (2 * N - 1) * S - 2, B is (2 * N + 1) * S + 2,
    findall(R, mr11_turn(Ag, C, R), Rs0), sort(Rs0, Rs), Rs \== [],
    member(Way, [short, long]), forall(member(R, Rs), mr11_length_off(Way, Ag, C, R, A, B)))).
mr11_length_off(Way, Ag, C, R, A, B) :- mr11_sums(Ag, C, R, Lo, Hi, M, LoF, HiF), mr11_length_off(Way, M, Lo, Hi, LoF, HiF, A, B).
mr11_length_off(short, M, Lo, _, _, _, _, B) :- M =< 10000, B =< 40000, 4 * Lo > B * B.
mr11_length_off(long, M, _, Hi, _, _, A, _) :- M =< 10000, A > 0, A =< 40000, 4 * Hi < A * A.
mr11_length_off(long, M, _, _, _, _, A, _) :- M =< 10000, A > 40000.
mr11_length_off(short, M, _, _, LoF, _, _, B) :- M > 10000, 2 * LoF > B.
mr11_length_off(long, M, _, _, _, HiF, A, _) :- M > 10000, 2 * HiF < A.
violates(Ag, mr11(Q), R) :- member(R, [move_against_view, depth_against_view, distance_against_view]),
    once((mr11_view(Q, C), mr11_why(Ag, C, R))).
violates(Ag, mr11(Q), zero_depth) :- once((C = mr11(Q), case_query(C, D), depth_query(D, _, _, _), mag_answer(Ag, D, 0))).

% The boxes behind a violation: those of the views that broke the law.
explain(Ag, mr11(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr11_view(Q, C), C = mr11(Q, O),
    once(mr11_why(Ag, C, _)), mr11_move(Q, _, T, S1, S2), member(S, [S1, S2]),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
