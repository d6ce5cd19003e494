% MR17 ground anchor: an object standing on a known surface meets it where the ray through its box's
% bottom row meets that surface, so a camera of known height and pitch bounds its depth and size,
% the distances, map directions and above/below between such objects, and how the camera moved.
:- include('mr17_ground.decl').

% The geometry and the rounding allowances are explained in mr17_ground.lp; the same integer steps
% here (// truncates towards zero, as clingo's / does).
mr17_reach(T, O, R) :- footprint(T, O, R0), !, R = R0.
mr17_reach(_, _, R) :- param(ground_reach_mm, R).

mr17_rows(T, S, O, G, VB1, VB2, VT1, VT2) :- support(T, O, Hs), obs_whole(T, S, O, _, Y1, _, Y2),
    camera_height(T, S, Hc), G is Hc - Hs, G >= 100, once(obs_pitch(T, S, _, _)), camera(T, _, _, _, Cy),
    obj_slack(T, O, _, KT, _, KB), obs_slack(T, K), \+ mr17_edge(T, S, O, K),
    VB1 is Cy - Y2 - 1 - KB, VB2 is Cy - Y2 + KB, VT1 is Cy - Y1 - 1 - KT, VT2 is Cy - Y1 + KT.
mr17_edge(T, S, O, K) :- detection(T, S, O, _, _, X1, Y1, X2, Y2), image_size(T, W, H),
    min(min(X1, Y1), min(W - 1 - X2, H - 1 - Y2)) < 2 * K + 2.

mr17_pitch(T, S, C, Sn) :- camera_pitch(T, S, P), trig4(P, C, Sn).
mr17_near(T, S, O, FL, FH) :- mr17_rows(T, S, O, G, V1, V2, _, _), mr17_pitch(T, S, C, Sn),
    camera(T, _, Fy, _, _), param(ground_min_dip_permille, M),
    E1 is 2 + abs(V1) // Fy, A1 is C - V1 * Sn // Fy - E1, B1 is E1 - V1 * C // Fy - Sn,
    E2 is 2 + abs(V2) // Fy, A2 is C - V2 * Sn // Fy + E2, B2 is -E2 - V2 * C // Fy - Sn, B2 >= 10 * M, A1 > 0,
    A1 =< 20000, A2 =< 20000, G =< 100000,
    FL is G * A1 // B1, FH is G * A2 // B2 + 1.
mr17_ahead(T, S, O, FL, FH) :- mr17_near(T, S, O, FL, FH), FH =< 100000.

mr17_depth_of(T, S, O, DL, DH) :- mr17_ahead(T, S, O, FL, FH), mr17_acentre(T, S, O, AN, AX),
    mr17_reach(T, O, R), DL is FL * 10000 // AX, DH is (FH + R) * 10000 // AN + 1.
mr17_acentre(T, S, O, AN, AX) :- obs_span(T, S, O, _, _, VL, VH), mr17_pitch(T, S, C, Sn), camera(T, _, Fy, _, _),
    AL is C - VL * Sn // Fy, EL is 2 + abs(VL) // Fy, AH is C - VH * Sn // Fy, EH is 2 + abs(VH) // Fy,
    AX is max(AL + EL, AH + EH), AN is min(AL - EL, AH - EH), AN >= 1000.

mr17_fan(T, S, O, top, V1, V2, FL, FF) :- mr17_ahead(T, S, O, FL, FH), mr17_rows(T, S, O, _, _, _, V1, V2),
    mr17_reach(T, O, R), FF is FH + 2 * R.
mr17_fan(T, S, O, mid, V1, V2, FL, FF) :- mr17_ahead(T, S, O, FL, FH), obs_span(T, S, O, _, _, V1, V2),
    mr17_reach(T, O, R), FF is FH + R.
mr17_ray(T, S, O, K, FL, FF, B1, A1L, A1H, B2, A2L, A2H) :- mr17_fan(T, S, O, K, V1, V2, FL, FF),
    FF =< 100000, mr17_pitch(T, S, C, Sn), camera(T, _, Fy, _, _),
    E1 is 2 + abs(V1) // Fy, A1 is C - V1 * Sn // Fy, B1 is V1 * C // Fy + Sn - E1,
    E2 is 2 + abs(V2) // Fy, A2 is C - V2 * Sn // Fy, B2 is V2 * C // Fy + Sn + E2,
    A1L is A1 - E1, A1H is A1 + E1, A2L is A2 - E2, A2H is A2 + E2, A1L >= 1000, A2L >= 1000,
    abs(B1) =< 20000, abs(B2) =< 20000.
mr17_z(T, S, O, K, ZL, ZH) :- mr17_ray(T, S, O, K, FL, FF, B1, A1L, A1H, B2, A2L, A2H),
    ( B1 >= 0 -> ZL is FL * B1 // A1H ; ZL is FF * B1 // A1L - 1 ),
    ( B2 >= 0 -> ZH is FF * B2 // A2L + 1 ; ZH is FL * B2 // A2H ).
mr17_size_of(T, S, O, HL, HH) :- mr17_rows(T, S, O, G, _, _, _, _), mr17_z(T, S, O, top, ZL, ZH),
    HL is G + ZL, HH is G + ZH.

mr17_pos_of(T, S, O, XL, XH, FLc, FHc, ZLc, ZHc) :- mr17_depth_of(T, S, O, DL, DH), DH =< 100000,
    mr17_ahead(T, S, O, FL, FH), mr17_reach(T, O, R), obs_span(T, S, O, UL, UH, _, _), camera(T, Fx, _, _, _),
    DLc is DL // 10, DHc is DH // 10 + 1,
    XA is min(min(UL * DLc, UL * DHc), min(UH * DLc, UH * DHc)),
    XB is max(max(UL * DLc, UL * DHc), max(UH * DLc, UH * DHc)),
    abs(XA // Fx) =< 10000, abs(XB // Fx) =< 10000, mr17_z(T, S, O, mid, ZL, ZH), abs(ZL) =< 100000, abs(ZH) =< 100000,
    XL is XA // Fx - 1, XH is XB // Fx + 1, FLc is FL // 10, FHc is (FH + R) // 10 + 1,
    ZLc is ZL // 10 - 1, ZHc is ZH // 10 + 1.

% The intervals of every anchored box are stored once per run, before the cases (the driver's
% ml_mr_store/2): the cases, their verdicts and their explanations read them again.
:- dynamic mr17_depth_row/5, mr17_size_row/5, mr17_pos_row/9, mr17_span_row/4, mr17_axes_row/8, mr17_sd_row/7.
ml_mr_store(mr17_store, [mr17_depth_row/5, mr17_size_row/5, mr17_pos_row/9, mr17_span_row/4, mr17_axes_row/8,
                         mr17_sd_row/7]).
mr17_store :-
    ml_forall_set(d(T, S, O, DL, DH), mr17_depth_of(T, S, O, DL, DH), assertz(mr17_depth_row(T, S, O, DL, DH))),
    ml_forall_set(s(T, S, O, HL, HH), mr17_size_of(T, S, O, HL, HH), assertz(mr17_size_row(T, S, O, HL, HH))),
    ml_forall_set(p(T, S, O, XL, XH, FL, FH, ZL, ZH), mr17_pos_of(T, S, O, XL, XH, FL, FH, ZL, ZH),
                  assertz(mr17_pos_row(T, S, O, XL, XH, FL, FH, ZL, ZH))),
    ml_forall_set(q(Q, K, N, X), mr17_span_of(Q, K, N, X), assertz(mr17_span_row(Q, K, N, X))),
    ml_forall_set(v(Q, O, R, GX, SX, GF, SF, DZ), mr17_axes_of(Q, O, R, GX, SX, GF, SF, DZ),
                  assertz(mr17_axes_row(Q, O, R, GX, SX, GF, SF, DZ))),
    ml_forall_set(w(Q, O, R, XL, XH, FL, FH), mr17_sd_of(Q, O, R, XL, XH, FL, FH),
                  assertz(mr17_sd_row(Q, O, R, XL, XH, FL, FH))).

% Distances between two anchored objects of a frame and from the camera to one: the least and
% greatest squared length in cm^2 (see mr17_ground.lp).
mr17_pq(Q, K, T, S, A, B) :- member(K, [obj_dist, map_dist]), pair_query(Q, K, T, S, A, B), A \== B.
mr17_span_of(Q, K, N, X) :- mr17_pq(Q, K, T, S, A, B), mr17_pos_row(T, S, A, AXL, AXH, AFL, AFH, AZL, AZH),
    mr17_pos_row(T, S, B, BXL, BXH, BFL, BFH, BZL, BZH),
    GX is max(0, max(AXL - BXH, BXL - AXH)), GF is max(0, max(AFL - BFH, BFL - AFH)),
    GZ is max(0, max(AZL - BZH, BZL - AZH)),
    SX is max(AXH - BXL, BXH - AXL), SF is max(AFH - BFL, BFH - AFL), SZ is max(AZH - BZL, BZH - AZL),
    ( K == obj_dist -> N is GX * GX + GF * GF + GZ * GZ, X is SX * SX + SF * SF + SZ * SZ
    ; N is GX * GX + GF * GF, X is SX * SX + SF * SF ).
mr17_span_of(Q, ego_dist, N, X) :- object_query(Q, ego_dist, T, S, O), mr17_pos_row(T, S, O, XL, XH, FL, FH, _, _),
    MX is max(0, max(XL, -XH)), XX is max(abs(XL), abs(XH)), N is MX * MX + FL * FL, X is XX * XX + FH * FH.

mr17_dq(Q, T, S, O) :- depth_query(Q, T, S, O), once(mr17_depth_row(T, S, O, _, _)).
mr17_sq(Q, T, O) :- object_query(Q, size, T, _, O), once(mr17_size_row(T, _, O, _, _)).
testcase(mr17d(Q), mr17, sc3b) :- mr17_dq(Q, _, _, _).
testcase(mr17s(Q), mr17, sc3a) :- mr17_sq(Q, _, _).
case_query(mr17d(Q), Q) :- mr17_dq(Q, _, _, _).
case_query(mr17s(Q), Q) :- mr17_sq(Q, _, _).
mr17_dcase(mr17o(Q), Q, sc2b) :- mr17_span_row(Q, obj_dist, _, _).
mr17_dcase(mr17m(Q), Q, sc4b) :- mr17_span_row(Q, K, _, _), K \== obj_dist.
testcase(mr17o(Q), mr17, sc2b) :- mr17_dcase(mr17o(Q), _, _).
testcase(mr17m(Q), mr17, sc4b) :- mr17_dcase(mr17m(Q), _, _).
case_query(mr17o(Q), Q) :- mr17_dcase(mr17o(Q), _, _).
case_query(mr17m(Q), Q) :- mr17_dcase(mr17m(Q), _, _).

violates(Ag, mr17d(Q), R) :- mr17_dq(Q, T, S, O), mag_answer(Ag, Q, D), mr17_depth_row(T, S, O, DL, DH),
    param(depth_round_mm, Rd), param(ground_slack_permille, P),
    ( D > DH + Rd + DH * P // 1000, R = farther_than_ground ; D < DL - Rd - DL * P // 1000, R = nearer_than_ground ).
% mr17_hw(T, S, O, L, H): the heights a frame allows, widened (also read by the relations below).
mr17_hw(T, S, O, L, H) :- mr17_size_row(T, S, O, HL, HH), param(ground_slack_permille, P),
    L is HL - 10 - abs(HL) * P // 1000, H is HH + 10 + abs(HH) * P // 1000.
mr17_short(Ag, Q, S) :- mr17_sq(Q, T, O), mag_answer(Ag, Q, H), H =< 100000, mr17_hw(T, S, O, L, _), H < L.
mr17_tall(Ag, Q, S) :- mr17_sq(Q, T, O), mag_answer(Ag, Q, H), H =< 100000, mr17_hw(T, S, O, _, Hh), H > Hh.
% Moves (SC1-b; see mr17_ground.lp): the views of a move_dist question are stored with their
% parts for each quarter turn, mr17_axes_row(Q, O, R, GX, SX, GF, SF, DZ).
mr17_mq(Q, T, S1, S2) :- move_query(Q, move_dist, T, S1, S2), agent_camera(T), S1 \== S2.
mr17_view(Q, O) :- mr17_axes_row(Q, O, 0, _, _, _, _, _).
mr17_quarter(0, 1, 0).
mr17_quarter(1, 0, 1).
mr17_quarter(2, -1, 0).
mr17_quarter(3, 0, -1).
mr17_axes_of(Q, O, 0, GX, SX, GF, SF, DZ) :- mr17_mq(Q, T, S1, S2), mr17_pos_row(T, S1, O, X1L, X1H, _, _, _, _),
    mr17_pos_row(T, S2, O, X2L, X2H, _, F2H, _, _), once(camera_height(T, S1, H1)), once(camera_height(T, S2, H2)),
    DZ is abs(H2 - H1) // 10, once(mr17_ahead(T, S1, O, N1L, N1H)), once(mr17_ahead(T, S2, O, N2L, N2H)),
    mr17_heading_mm(T, O, E), TL is (N1L - N2H - E) // 10 - 1, TH is (N1H - N2L + E) // 10 + 1,
    mr17_drift(0, T, X2L, X2H, F2H, PX, PF), mr17_x0(T, S1, S2, O, X1L - X1H, X2L - X2H, XL, XH),
    GX is max(0, max(XL, -XH) - PX), SX is max(XH, -XL) + PX,
    GF is max(0, max(TL, -TH) - PF), SF is max(TH, -TL) + PF.
mr17_axes_of(Q, O, R, GX, SX, GF, SF, DZ) :- mr17_mq(Q, T, S1, S2), mr17_pos_row(T, S1, O, X1L, X1H, F1L, F1H, _, _),
    mr17_pos_row(T, S2, O, X2L, X2H, F2L, F2H, _, _), once(camera_height(T, S1, H1)), once(camera_height(T, S2, H2)),
    DZ is abs(H2 - H1) // 10, mr17_quarter(R, Cr, Sr), R =\= 0,
    XS = [Cr * X2L - Sr * F2L, Cr * X2L - Sr * F2H, Cr * X2H - Sr * F2L, Cr * X2H - Sr * F2H],
    FS = [Sr * X2L + Cr * F2L, Sr * X2L + Cr * F2H, Sr * X2H + Cr * F2L, Sr * X2H + Cr * F2H],
    min_list(XS, RXL0), max_list(XS, RXH0), min_list(FS, RFL0), max_list(FS, RFH0),
    RXL is RXL0, RXH is RXH0, RFL is RFL0, RFH is RFH0,
    mr17_drift(R, T, X2L, X2H, F2H, PX, PF),
    GX is max(0, max(X1L - RXH, RXL - X1H) - PX), SX is max(X1H - RXL, RXH - X1L) + PX,
    GF is max(0, max(F1L - RFH, RFL - F1H) - PF), SF is max(F1H - RFL, RFH - F1L) + PF.
% Across without a turn (see mr17_ground.lp): the centre keeps its fraction of the box between the
% two frames, and its reach behind the nearest point, so the places' difference is narrowed to the
% range over the span's ends, the nearest points' depths and the reach.
mr17_xa(T, S, O, A0, A1, E0, E1, NL, NH, RA, IL, IH) :- once(mr17_depth_row(T, S, O, _, DH)), DH =< 100000,
    once(mr17_ahead(T, S, O, FL, FH)), once(mr17_acentre(T, S, O, AN, AX)), mr17_reach(T, O, R), R =< 100000,
    obs_whole(T, S, O, X1, Y1, X2, Y2), camera(T, _, _, Cx, _), obj_slack(T, O, KL, _, KR, _),
    obj_centre(T, O, P, _), param(centre_drift_permille, Md),
    W is X2 + 1 - X1, M is W * (1000 - P) // 2000, G is Md * (X2 - X1 + Y2 - Y1 + 2) // 1000,
    E0 is ((W - M) * KL + M * KR + W - 1) // W + 1 + G, E1 is (M * KL + (W - M) * KR + W - 1) // W + 1 + G,
    A0 is X1 + M - Cx, A1 is X2 + 1 - M - Cx,
    NL is FL * 1000 // AX, NH is FH * 1000 // AN + 1, RA is R * 1000 // AN + 1,
    IL is 100000000 // AX, IH is 100000000 // AN + 1.
mr17_rho(T, O, Rh) :- mr17_reach(T, O, R), ( exact_turns(T) -> Rh = 0 ; Rh is R * 73 // 1000 + 1 ).
mr17_x0(T, S1, S2, O, X1L - X1H, X2L - X2H, XL, XH) :- once(camera(T, Fx, _, _, _)),
    mr17_reach(T, O, R), mr17_rho(T, O, Rh),
    mr17_xa(T, S1, O, A0, A1, E0, E1, N1L, N1H, RA, I1L, I1H),
    mr17_xa(T, S2, O, B0, B1, F0, F1, N2L, N2H, _, I2L, I2H),
    DA is max(0, max(I1H - I2L, I2H - I1L)),
    U is ((R // 10 + 1) * DA + 9999) // 10000 + ((Rh // 10 + 1) * I2H + 9999) // 10000,
    mr17_xend(A0, B0, E0, F0, N1L, N1H, N2L, N2H, RA, U, L0, H0),
    mr17_xend(A1, B1, E1, F1, N1L, N1H, N2L, N2H, RA, U, L1, H1),
    LX is min(L0, L1) // Fx - 3, HX is max(H0, H1) // Fx + 3,
    XL is max(X1L - X2H, LX), XH is min(X1H - X2L, HX).
% One end of the span: the products over the nearest points' depths, their slack, the reach's term
% over u1 - u2, and the small terms per pixel of |u2| (see mr17_ground.lp).
mr17_xend(A, B, E, F, N1L, N1H, N2L, N2H, RA, U, L, H) :-
    K is E * N1H + F * N2H + U * (abs(B) + F), DL is A - B - E - F, DH is A - B + E + F,
    L is min(A * N1L, A * N1H) - max(B * N2L, B * N2H) - K + min(0, RA * DL),
    H is max(A * N1L, A * N1H) - min(B * N2L, B * N2H) + K + max(0, RA * DH).
% How far the nearest point along the heading may move for a heading that drifts (mm; see the .lp).
mr17_heading_mm(T, O, E) :- mr17_reach(T, O, Rc), ( exact_turns(T) -> E = 1 ; E is Rc * 70 // 1000 + 1 ).
% The drift of the heading (see mr17_ground.lp): up to 4 degrees between the two frames' headings,
% none where the scenario turns by exact quarter turns.
mr17_drift(_, T, _, _, _, 0, 0) :- exact_turns(T), !.
mr17_drift(0, _, X2L, X2H, F2H, PX, PF) :- !, AX is max(abs(X2L), abs(X2H)),
    PX is (70 * F2H + 3 * AX + 999) // 1000, PF is (70 * AX + 3 * F2H + 999) // 1000.
mr17_drift(_, _, X2L, X2H, F2H, P, P) :- AX is max(abs(X2L), abs(X2H)), P is (70 * (AX + F2H) + 999) // 1000.
testcase(mr17v(Q), mr17, sc1b) :- distinct(Q, mr17_axes_row(Q, _, 0, _, _, _, _, _)).
case_query(mr17v(Q), Q) :- once(mr17_axes_row(Q, _, 0, _, _, _, _, _)).
mr17_moveq(Q, Qm) :- mr17_mq(Q, T, S1, S2), move_query(Qm, move_dir, T, S1, S2).
case_support(mr17v(Q), Qm) :- once(mr17_axes_row(Q, _, 0, _, _, _, _, _)), mr17_moveq(Q, Qm).
mr17_turn(Ag, Q, R, A, B) :- mr17_moveq(Q, Qm), move_answer(Ag, Qm, move(N, Tn)), !, turn(Tn, R),
    dir_name(move, N, A, B, _).
mr17_turn(_, _, R, 9, 9) :- mr17_quarter(R, _, _).
% A part answered 0 whose least length the views leave at most 3 cm is at most 3 cm (see the .lp).
mr17_clamp(0, G, S, C) :- G =< 3, !, C is min(S, 3).
mr17_clamp(_, _, S, S).
mr17_steps(Ag, Q, A, B) :- mag_answer(Ag, Q, N), N =< 10000, mr17_mq(Q, T, _, _), step_mm(T, Mm), S is (Mm + 5) // 10,
    (2 * N + 1) * S =< 40000, A is (2 * N - 1) * S - 4, B is (2 * N + 1) * S + 4.
mr17_fits(Ag, Q, O, A, B) :- mr17_turn(Ag, Q, R, SA, SB), mr17_axes_row(Q, O, R, GX, SX, GF, SF, DZ),
    mr17_clamp(SA, GX, SX, CX), mr17_clamp(SB, GF, SF, CF),
    Lo is GX * GX + GF * GF + DZ * DZ, Hi is CX * CX + CF * CF + DZ * DZ,
    ( A =< 0 -> true ; A * A // 4 =< Hi ), (B * B + 3) // 4 >= Lo.
violates(Ag, mr17v(Q), distance_against_ground) :- mr17_steps(Ag, Q, A, B),
    mr17_view(Q, O), \+ mr17_fits(Ag, Q, O, A, B), !.
% The answers that cannot all be right: the distance alone where a view fits it for no turn and no
% signs, else the distance and the move_dir answer (see mr17_ground.lp).
:- multifile conflict/4.
:- dynamic conflict/4.
conflict(Ag, mr17v(Q), alone, Q) :- violated(Ag, mr17v(Q)), mr17_alone(Ag, Q).
conflict(Ag, mr17v(Q), turn, X) :- violated(Ag, mr17v(Q)), \+ mr17_alone(Ag, Q),
    ml_case_id(mr17v(Q), I), case_read_i(I, X), answer(Ag, X, _).
mr17_alone(Ag, Q) :- mr17_steps(Ag, Q, A, B), mr17_view(Q, O), \+ mr17_free_fits(Q, O, A, B), !.
mr17_free_fits(Q, O, A, B) :- mr17_axes_row(Q, O, _, GX, SX, GF, SF, DZ),
    (B * B + 3) // 4 >= GX * GX + GF * GF + DZ * DZ, ( A =< 0 -> true ; A * A // 4 =< SX * SX + SF * SF + DZ * DZ ), !.

% Move directions (SC1-a; see mr17_ground.lp): each view's signed parts across and ahead (cm) for
% each turn, widened for the heading, mr17_sd_row(Q, O, R, XL, XH, FL, FH); the part up is the
% change of the camera's height.
mr17_wq(Q, T, S1, S2, D) :- move_query(Q, move_dir, T, S1, S2), agent_camera(T), S1 \== S2,
    once(camera_height(T, S1, H1)), once(camera_height(T, S2, H2)), D is H2 - H1.
mr17_sd_of(Q, O, R, XL, XH, FL, FH) :- mr17_wq(Q, T, S1, S2, _), mr17_pos_row(T, S1, O, X1L, X1H, F1L, F1H, _, _),
    mr17_pos_row(T, S2, O, X2L, X2H, F2L, F2H, _, _), AX is max(abs(X2L), abs(X2H)),
    mr17_sd_turn(T, S1, S2, O, R, X1L - X1H - F1L - F1H, X2L - X2H - F2L - F2H, XL0, XH0, FL0, FH0),
    (   exact_turns(T) -> PX = 0, PF = 0, E = 1
    ;   ( R =:= 0 -> PX is (70 * F2H + 3 * AX + 999) // 1000, PF is (70 * AX + 3 * F2H + 999) // 1000
        ; PX is (70 * (AX + F2H) + 999) // 1000, PF = PX ),
        E is (35 * (max(abs(XL0), abs(XH0)) + max(abs(FL0), abs(FH0))) + 999) // 1000 + 1
    ),
    XL is XL0 - E - PX, XH is XH0 + E + PX, FL is FL0 - E - PF, FH is FH0 + E + PF.
mr17_sd_turn(T, S1, S2, O, 0, X1L - X1H - _ - _, X2L - X2H - _ - _, XL, XH, TL, TH) :-
    once(mr17_ahead(T, S1, O, N1L, N1H)), once(mr17_ahead(T, S2, O, N2L, N2H)), mr17_heading_mm(T, O, E),
    TL is (N1L - N2H - E) // 10 - 1, TH is (N1H - N2L + E) // 10 + 1,
    mr17_x0(T, S1, S2, O, X1L - X1H, X2L - X2H, XL, XH).
mr17_sd_turn(_, _, _, _, R, X1L - X1H - F1L - F1H, X2L - X2H - F2L - F2H, XL, XH, FL, FH) :-
    mr17_quarter(R, Cr, Sr), R =\= 0,
    XS = [Cr * X2L - Sr * F2L, Cr * X2L - Sr * F2H, Cr * X2H - Sr * F2L, Cr * X2H - Sr * F2H],
    FS = [Sr * X2L + Cr * F2L, Sr * X2L + Cr * F2H, Sr * X2H + Cr * F2L, Sr * X2H + Cr * F2H],
    min_list(XS, RXL), max_list(XS, RXH), min_list(FS, RFL), max_list(FS, RFH),
    XL is X1L - RXH, XH is X1H - RXL, FL is F1L - RFH, FH is F1H - RFL.
testcase(mr17w(Q), mr17, sc1a) :- mr17_wq(Q, _, _, _, _).
case_query(mr17w(Q), Q) :- mr17_wq(Q, _, _, _, _).
% mr17_wpart(Ag, Q, O, Sign, L, H): a part's answered sign and interval (mm); O = camera(height) for the
% part up (a compound no object id can be).
mr17_wpart(Ag, Q, O, Sg, L, H) :- move_answer(Ag, Q, move(N, Tn)), turn(Tn, R), dir_name(move, N, A, B, C),
    ( mr17_sd_row(Q, O, R, XL, XH, FL, FH), ( Sg = A, L is 10 * XL, H is 10 * XH ; Sg = B, L is 10 * FL, H is 10 * FH )
    ; O = camera(height), Sg = C, mr17_wq(Q, _, _, _, L), H = L ).
mr17_wrong(Ag, Q, O) :- mr17_wpart(Ag, Q, O, Sg, L, H), param(truth_move_tol_mm, W),
    ( Sg =:= 1 -> H =< W ; Sg =:= -1 -> L >= -W ; ( L > W ; H < -W ) ).
violates(Ag, mr17w(Q), direction_against_ground) :- once(mr17_wrong(Ag, Q, _)).

% Map directions (SC4-a; see mr17_ground.lp): the answered cone must meet the difference of the two
% anchored places, widened by a cm.
mr17_mapq(Q, T, S, A, B) :- pair_query(Q, map_dir, T, S, A, B), A \== B, once(mr17_pos_row(T, S, A, _, _, _, _, _, _)),
    once(mr17_pos_row(T, S, B, _, _, _, _, _, _)).
testcase(mr17a(Q), mr17, sc4a) :- mr17_mapq(Q, _, _, _, _).
case_query(mr17a(Q), Q) :- mr17_mapq(Q, _, _, _, _).
violates(Ag, mr17a(Q), map_against_ground) :- mr17_mapq(Q, T, S, A, B), dir_answer(Ag, Q, N),
    mr17_pos_row(T, S, A, XAL, XAH, FAL, FAH, _, _), mr17_pos_row(T, S, B, XBL, XBH, FBL, FBH, _, _),
    LL is XAL - XBH - 1, LH is XAH - XBL + 1, FL is FAL - FBH - 1, FH is FAH - FBL + 1,
    map_miss(N, LL, LH, FL, FH), !.

violates(Ag, mr17o(Q), R) :- mr17_dviolates(Ag, Q, R).
violates(Ag, mr17m(Q), R) :- mr17_dviolates(Ag, Q, R).
mr17_dviolates(Ag, Q, R) :- mag_answer(Ag, Q, L), L =< 200000, mr17_span_row(Q, _, N, X),
    param(ground_slack_permille, P), W is 20 + L * P // 1000, AL is (L - W) // 10, AH is (L + W) // 10 + 1,
    ( AL > 0, AL * AL > X, R = farther_than_ground ; AH * AH < N, R = nearer_than_ground ).
% With a detector's boxes, only where no anchored frame's interval holds the size (see mr17_ground.lp).
violates(Ag, mr17s(Q), shorter_than_ground) :- once(mr17_short(Ag, Q, _)), mr17_size_off(Ag, Q).
violates(Ag, mr17s(Q), taller_than_ground) :- once(mr17_tall(Ag, Q, _)), mr17_size_off(Ag, Q).
mr17_size_off(_, Q) :- mr17_sq(Q, T, _), exact_boxes(T), !.
mr17_size_off(Ag, Q) :- \+ mr17_fits(Ag, Q).
mr17_fits(Ag, Q) :- mr17_sq(Q, T, O), mag_answer(Ag, Q, H), H =< 100000, mr17_size_row(T, S, O, _, _),
    \+ mr17_short(Ag, Q, S), \+ mr17_tall(Ag, Q, S), !.

% Object relations (SC2-a; see mr17_ground.lp): the middles 2 Hs + H that the anchored heights allow
% (their intersection over the frames for the simulator's boxes, their union for a detector's).
mr17_hall(T, O, L, H) :- support(T, O, _), findall(L1, mr17_hw(T, _, O, L1, _), Ls), Ls \== [],
    findall(H1, mr17_hw(T, _, O, _, H1), Hs),
    ( exact_boxes(T) -> max_list(Ls, L), min_list(Hs, H) ; min_list(Ls, L), max_list(Hs, H) ).
mr17_mid2(T, O, ML, MH) :- once(support(T, O, Hs)), mr17_hall(T, O, L, H), L =< H,
    ML is 2 * Hs + max(0, L), MH is 2 * Hs + H.
mr17_uq(Q, LD, HD) :- pair_query(Q, obj_dir, T, _, A, B), A \== B, mr17_mid2(T, A, AL, AH), mr17_mid2(T, B, BL, BH),
    LD is AL - BH, HD is AH - BL.
testcase(mr17u(Q), mr17, sc2a) :- mr17_uq(Q, _, _).
case_query(mr17u(Q), Q) :- mr17_uq(Q, _, _).
violates(Ag, mr17u(Q), vertical_against_ground) :- mr17_uq(Q, LD, HD), dir_answer(Ag, Q, N),
    dir_name(ego, N, _, _, SU), param(truth_band_mm, W), mr17_uoff(SU, LD, HD, W).
mr17_uoff(1, _, HD, W) :- HD < 2 * (W - 10).
mr17_uoff(-1, LD, _, W) :- LD > -2 * (W - 10).
mr17_uoff(0, LD, HD, W) :- ( LD > 2 * (W + 20) ; HD < -2 * (W + 20) ), !.

explain(Ag, mr17d(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17d(Q)), mr17_dq(Q, T, S, O),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
explain(Ag, mr17s(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17s(Q)), mr17_sq(Q, T, O),
    distinct(S, ( mr17_short(Ag, Q, S) ; mr17_tall(Ag, Q, S) )), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
explain(Ag, mr17w(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17w(Q)), mr17_wq(Q, T, S1, S2, _),
    distinct(O, mr17_wrong(Ag, Q, O)), member(S, [S1, S2]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
explain(Ag, mr17a(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17a(Q)), mr17_mapq(Q, T, S, A, B),
    member(O, [A, B]), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
explain(Ag, mr17u(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17u(Q)),
    pair_query(Q, obj_dir, T, _, A, B), member(O, [A, B]), mr17_size_row(T, S, O, _, _),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
