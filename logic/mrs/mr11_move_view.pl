% MR11 move consistency: a move must fit how the view changed. A still object seen in both frames,
% placed at the agent's own depth answers, shows where the camera went: its place in the first
% frame minus its place in the second (turned back by the answered turn) is the camera's
% displacement, which must have the answered direction (and length, for move_dist).
:- include('mr11_move_view.decl').

mr11_shared(T, S1, S2, O, D1, D2) :- agent_camera(T), depth_query(D1, T, S1, O), depth_query(D2, T, S2, O),
    S1 \== S2, once(obs_span(T, S1, O, _, _, _, _)), once(obs_span(T, S2, O, _, _, _, _)),
    once(obs_pitch(T, S1, _, _)), once(obs_pitch(T, S2, _, _)).
mr11_move(Q, move_dir, T, S1, S2) :- query(Q, move_dir(T, S1, S2)).
mr11_move(Q, move_dist, T, S1, S2) :- query(Q, move_dist(T, S1, S2)).
% One case per move answer; each object seen whole in both frames is one view mr11(Q, O) of it, and
% one view that contradicts the answer breaks the case (see mr11_move_view.lp).
testcase(mr11(Q), mr11, SC) :- mr11_move(Q, _, T, S1, S2), once(mr11_shared(T, S1, S2, _, _, _)), query_sc(Q, SC).
case_query(mr11(Q), X) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, _, D1, D2), member(X, [Q, D1, D2]).
case_support(mr11(Q), Qm) :- mr11_move(Q, move_dist, T, S1, S2), move_query(Qm, move_dir, T, S1, S2).
case_support(mr11(Q), Qs) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, O, _, _), any_object_query(Qs, size, T, _, O).
mr11_view_of(Q, mr11(Q, O)) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, O, _, _).

% The views of every move question and the placements they read are stored once per run, before
% the cases (the driver's ml_mr_store/2): each is read by every reason and answer of the question,
% and each placement by every question over its frame, and a stored fact is found far more cheaply
% than a tabled call is made. So are the views that break the law (mr11_off_row/4, below): the
% verdict asks whether there is one and the explanation which ones, so each view is judged once.
:- dynamic mr11_view_row/2, mr11_placed_row/7, mr11_off_row/4.
ml_mr_store(mr11_store, [mr11_view_row/2, mr11_placed_row/7, mr11_off_row/4]).
mr11_store :-
    ml_forall_set(Q-C, mr11_view_of(Q, C), assertz(mr11_view_row(Q, C))),
    ml_forall_set(T-S-O, ( mr11_view_row(Q, mr11(Q, O)), mr11_move(Q, _, T, S1, S2), member(S, [S1, S2]) ),
        ml_forall_set(p(Ag, Cs, NX, NFZ), mr11_place_of(Ag, T, S, O, Cs, NX, NFZ),
                      assertz(mr11_placed_row(Ag, T, S, O, Cs, NX, NFZ)))),
    ml_forall_set(Q, mr11_view_row(Q, _), forall(agent(Ag), mr11_store_off(Ag, Q))).
mr11_view(Q, C) :- mr11_view_row(Q, C).
mr11_placed(Ag, T, S, O, Cs, NX, NFZ) :- mr11_placed_row(Ag, T, S, O, Cs, NX, NFZ).

% The turn the agent answered; a distance takes the turn of the agent's own move_dir answer over the
% same states, or else every quarter turn (all must break the law).
mr11_turn(Ag, Q, R) :- move_answer(Ag, Q, move(_, N)), turn(N, R).
mr11_turn(Ag, Q, R) :- mr11_move(Q, move_dist, T, S1, S2), mag_answer(Ag, Q, _),
    ( move_query(Qm, move_dir, T, S1, S2), move_answer(Ag, Qm, move(_, N))
    -> turn(N, R)
    ;  between(0, 3, R)
    ).

% The depth an object is placed at: the answered depth, raised to the least depth at which an object
% of the agent's own answered size looks as small as its box (see mr11_move_view.lp).
mr11_dc(Ag, T, S, O, D) :- place(Ag, T, S, O, _, _, _, _, Dc),
    findall(F, mr11_floor(Ag, T, S, O, Dc, F), Fs), max_list([Dc|Fs], D).
% (A box of no height has no floor, as on clingo, where a division by zero leaves the rule out: the
% placements are stored for every frame a view reads, asked or not, and must not raise an error.)
mr11_floor(Ag, T, S, O, Dc, F) :- level(Ag, T, S, O, _, _, FL, _, _, _), FL > 0, FL =< 100000,
    once(obs_whole(T, S, O, _, Y1, _, Y2)), camera(T, _, Fy, _, _), obj_slack(T, O, _, KT, _, KB),
    param(pinhole_slack_permille, P), mr11_size(Ag, T, O, Hc), Hb is Y2 - Y1 + 1 + KT + KB, Hb =\= 0,
    G is Fy * Hc // Hb, G =< 1000000,
    F is G * (FL * 1000 // Dc) // (1000 + P).
mr11_size(Ag, T, O, Hc) :- any_object_query(Q, size, T, _, O), mag_answer(Ag, Q, HS), HS > 0, HS =< 100000, Hc is (HS + 5) // 10.

% A placement of an object in one frame, mr11_placed(Ag, T, S, O, Cs, NX, NFZ), stored once per
% agent, frame and object and shared by every view, turn and reason that reads it: Cs holds
% the centre (X, F, Z: right, levelled forward and up, in cm) for each corner (A, B) of where it may
% lie within the box, in the order (0,0), (0,1), (1,0), (1,1); NX and NFZ are the slack of the
% placement right and forward or up (see mr11_move_view.lp).
mr11_place_of(Ag, T, S, O, Cs, NX, NFZ) :- detection(T, S, O, _, _, X1, Y1, X2, Y2), camera(T, Fx, Fy, Cx, Cy),
    mr11_dc(Ag, T, S, O, Dc), obs_pitch(T, S, C, Sn),
    findall(c(X, F, Z), ( member(A, [0, 1]), member(B, [0, 1]),
                          X is (X1 + A * (X2 - X1 + 1) - Cx) * Dc // Fx, Y is (Cy - Y1 - B * (Y2 - Y1 + 1)) * Dc // Fy,
                          F is (Dc * C - Y * Sn) // 1000, Z is (Dc * Sn + Y * C) // 1000 ), Cs),
    obj_slack(T, O, KL, KT, KR, KB), param(centre_drift_permille, M), G is M * (X2 - X1 + Y2 - Y1 + 2) // 1000,
    PX is 2 * max(KL, KR) + 1 + G, PY is 2 * max(KT, KB) + 1 + G, param(depth_round_mm, R),
    NX is PX * Dc // Fx + 1, NFZ is (PY * Dc // Fy) * 3 // 2 + 2 + (R + 9) // 10.
mr11_rot(0, X, F, X, F).
mr11_rot(R, X, F, X1, F1) :- R > 0, R0 is R - 1, mr11_rot(R0, X, F, Y, G), X1 is -G, F1 = Y.

% The placements of a view's object in its two frames.
mr11_placements(Ag, mr11(Q, O), P1, P2) :- mr11_move(Q, _, T, S1, S2),
    P1 = p(Cs1, NX1, NFZ1), mr11_placed(Ag, T, S1, O, Cs1, NX1, NFZ1),
    P2 = p(Cs2, NX2, NFZ2), mr11_placed(Ag, T, S2, O, Cs2, NX2, NFZ2).
% The camera's displacement under turn R as an interval per axis, [x-(L-H), f-(L-H), z-(L-H)]: the
% place in the first frame minus the place in the second turned back by R, over the four corners
% (the same corner in both frames), widened by the slack of both placements.
mr11_parts(p(Cs1, NX1, NFZ1), p(Cs2, NX2, NFZ2), R, [x-(LX-HX), f-(LF-HF), z-(LZ-HZ)]) :-
    mr11_diffs(Cs1, Cs2, R, Xs, Fs, Zs),
    min_list(Xs, LX0), max_list(Xs, HX0), LX is LX0 - NX1 - NX2, HX is HX0 + NX1 + NX2,
    min_list(Fs, LF0), max_list(Fs, HF0), LF is LF0 - NFZ1 - NFZ2, HF is HF0 + NFZ1 + NFZ2,
    min_list(Zs, LZ0), max_list(Zs, HZ0), LZ is LZ0 - NFZ1 - NFZ2, HZ is HZ0 + NFZ1 + NFZ2.
mr11_diffs([], [], _, [], [], []).
mr11_diffs([c(X1, F1, Z1)|Cs1], [c(X2, F2, Z2)|Cs2], R, [VX|Xs], [VF|Fs], [VZ|Zs]) :-
    mr11_rot(R, X2, F2, X2r, F2r), VX is X1 - X2r, VF is F1 - F2r, VZ is Z1 - Z2,
    mr11_diffs(Cs1, Cs2, R, Xs, Fs, Zs).

% What the agent's answer to Q says that each of its views is checked against, per reason R,
% mr11_ask(Ag, Q, R, Ask): worked out once per answer rather than once per view. A view breaks the
% law for R where it is off for one of the answer's asks for R (mr11_off/3).
mr11_ask(Ag, Q, move_against_view, dir(SX, SF, SZ, R, W)) :- move_answer(Ag, Q, move(N, _)),
    dir_name(move, N, SX, SF, SZ), mr11_turn(Ag, Q, R), param(truth_move_tol_mm, W).
mr11_ask(Ag, Q, depth_against_view, depth(M)) :- once(mr11_turn(Ag, Q, _)), param(scale_tol_permille, M).
% A distance breaks the law where, for every turn the agent may have made (Rs), the view's
% displacement is too short for it (or, for every turn, too long).
mr11_ask(Ag, Q, distance_against_view, dist(Rs, A, B)) :- query(Q, move_dist(T, _, _)), mag_answer(Ag, Q, N),
    N =< 10000, step_mm(T, Mm), S is (Mm + 5) // 10, S =< 10000, A is (2 * N - 1) * S - 2, B is (2 * N + 1) * S + 2,
    findall(R, mr11_turn(Ag, Q, R), Rs0), sort(Rs0, Rs), Rs \== [].

mr11_off(Ag, C, dir(SX, SF, SZ, R, W)) :- mr11_placements(Ag, C, P1, P2), mr11_parts(P1, P2, R, Parts),
    member(I-Sg, [x-SX, f-SF, z-SZ]), memberchk(I-(L-H), Parts), mr11_sign_off(Sg, L, H, W).
mr11_off(Ag, mr11(Q, O), depth(M)) :- mr11_move(Q, _, T, S1, S2), obj_slack(T, O, _, KT, _, KB),
    obs_whole(T, S1, O, _, Y1, _, Y2), obs_whole(T, S2, O, _, Z1, _, Z2),
    \+ mr11_steep(T, S1, Y1, Y2), \+ mr11_steep(T, S2, Z1, Z2), H1 is Y2 - Y1 + 1, H2 is Z2 - Z1 + 1,
    depth_of(Ag, T, S1, O, D1), depth_of(Ag, T, S2, O, D2), D1 =< 200000, D2 =< 200000, H1 =< 5000, H2 =< 5000,
    W is max(H1, H2) * max(D1, D2) // 1000 * M + (KT + KB + 1) * (D1 + D2), abs(H1 * D1 - H2 * D2) > W.
mr11_off(Ag, C, dist(Rs, A, B)) :- mr11_placements(Ag, C, P1, P2), maplist(mr11_sums(P1, P2), Rs, Sums),
    member(Way, [short, long]), forall(member(Sm, Sums), mr11_length_off(Way, Sm, A, B)).
% A steep view: the box centre more than scale_level off the horizon (see mr11_move_view.lp).
mr11_steep(T, S, Y1, Y2) :- once((camera(T, _, Fy, _, Cy), obs_pitch(T, S, C, Sn))),
    V is 2 * Cy - Y1 - Y2 - 1, N is V * C + 2 * Fy * Sn, D is 2 * Fy * C - V * Sn,
    param(scale_level, L), L >= 0, ( D =< 0 -> true ; 1000 * abs(N) > L * D ).
mr11_sign_off(1, _, H, W) :- 10 * H =< W.
mr11_sign_off(-1, L, _, W) :- 10 * L >= -W.
mr11_sign_off(0, L, H, W) :- ( 10 * L > W ; 10 * H < -W ), !.

% The length of the displacement under turn R, from its interval per axis: the least and greatest
% squared length (Lo, Hi), the largest axis bound M, and for far objects the largest least axis
% (LoF) and the sum of the greatest (HiF).
mr11_sums(P1, P2, R, s(Lo, Hi, M, LoF, HiF)) :- mr11_parts(P1, P2, R, Parts),
    foldl(mr11_add, Parts, 0-0-0-0-0, Lo-Hi-M-LoF-HiF).
mr11_add(_-(L-H), Lo0-Hi0-M0-LF0-HF0, Lo-Hi-M-LF-HF) :- ivl_min_abs(L, H, A), ivl_max_abs(L, H, B),
    Lo is Lo0 + A * A, Hi is Hi0 + B * B, M is max(M0, B), LF is max(LF0, A), HF is HF0 + B.
mr11_length_off(short, s(Lo, _, M, _, _), _, B) :- M =< 10000, B =< 40000, 4 * Lo > B * B.
mr11_length_off(long, s(_, Hi, M, _, _), A, _) :- M =< 10000, A > 0, A =< 40000, 4 * Hi < A * A.
mr11_length_off(long, s(_, _, M, _, _), A, _) :- M =< 10000, A > 40000.
mr11_length_off(short, s(_, _, M, LoF, _), _, B) :- M > 10000, 2 * LoF > B.
mr11_length_off(long, s(_, _, M, _, HiF), A, _) :- M > 10000, 2 * HiF < A.
% mr11_off_row(Ag, Q, R, O): the view of O breaks the law for reason R under the agent's answer to
% Q (stored by mr11_store/0 for every agent and move question with views; only an answer to Q has
% asks, so the agents that did not answer it are passed over at once).
mr11_store_off(Ag, Q) :-
    forall(( member(R, [move_against_view, depth_against_view, distance_against_view]),
             findall(Ask, mr11_ask(Ag, Q, R, Ask), Asks), Asks \== [],
             mr11_view(Q, C), C = mr11(Q, O), once(( member(Ask, Asks), mr11_off(Ag, C, Ask) )) ),
           assertz(mr11_off_row(Ag, Q, R, O))).
violates(Ag, mr11(Q), R) :- member(R, [move_against_view, depth_against_view, distance_against_view]),
    once(mr11_off_row(Ag, Q, R, _)).
violates(Ag, mr11(Q), zero_depth) :- once(( stored_case_query(mr11(Q), D), depth_query(D, _, _, _), mag_answer(Ag, D, 0) )).

% The answers that cannot all be right: a depth pair that does not rescale, the whole case for a
% move or distance view, a depth of 0 (see mr11_move_view.lp).
:- multifile conflict/4.
:- dynamic conflict/4.
conflict(Ag, mr11(Q), rescale(O), X) :- mr11_off_row(Ag, Q, depth_against_view, O), mr11_view_depth(Q, O, X).
conflict(Ag, mr11(Q), views, X) :- once(( mr11_off_row(Ag, Q, R, _), R \== depth_against_view )),
    ml_case_id(mr11(Q), I), case_read_i(I, X), answer(Ag, X, _).
conflict(Ag, mr11(Q), zero(D), D) :- mr11_move(Q, _, _, _, _), stored_case_query(mr11(Q), D),
    depth_query(D, _, _, _), mag_answer(Ag, D, 0).
mr11_view_depth(Q, O, X) :- mr11_move(Q, _, T, S1, S2), mr11_shared(T, S1, S2, O, D1, D2), member(X, [D1, D2]).

% The boxes behind a violation: those of the views that broke the law (for any reason).
explain(Ag, mr11(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- mr11_view(Q, mr11(Q, O)),
    once(mr11_off_row(Ag, Q, _, O)),
    mr11_move(Q, _, T, S1, S2), member(S, [S1, S2]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
