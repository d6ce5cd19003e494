% MR17 ground anchor: an object standing on a known surface meets it where the ray through its box's
% bottom row meets that surface, so a camera of known height and pitch bounds its depth and size.
:- include('mr17_ground.decl').

% The geometry and the rounding allowances are explained in mr17_ground.lp; the same integer steps
% here (// truncates towards zero, as clingo's / does).
mr17_reach(T, O, R) :- footprint(T, O, R0), !, R = R0.
mr17_reach(_, _, R) :- param(ground_reach_mm, R).

mr17_rows(T, S, O, G, VB1, VB2, VT1, VT2) :- support(T, O, Hs), obs_whole(T, S, O, _, Y1, _, Y2),
    camera_height(T, S, Hc), G is Hc - Hs, G >= 100, once(obs_pitch(T, S, _, _)), camera(T, _, _, _, Cy),
    obs_slack(T, K), VB1 is Cy - Y2 - 1 - K, VB2 is Cy - Y2 + K, VT1 is Cy - Y1 - 1 - K, VT2 is Cy - Y1 + K.

mr17_near(T, S, O, FL, FH) :- mr17_rows(T, S, O, G, V1, V2, _, _), obs_pitch(T, S, C, Sn),
    camera(T, _, Fy, _, _), param(ground_min_dip_permille, M),
    E1 is 2 + abs(V1) // Fy, A1 is C - V1 * Sn // Fy - E1, B1 is E1 - V1 * C // Fy - Sn,
    E2 is 2 + abs(V2) // Fy, A2 is C - V2 * Sn // Fy + E2, B2 is -E2 - V2 * C // Fy - Sn, B2 >= M, A1 > 0,
    FL is G * A1 // B1, FH is G * A2 // B2 + 1.
mr17_ahead(T, S, O, FL, FH) :- mr17_near(T, S, O, FL, FH), FH =< 100000.

mr17_depth_of(T, S, O, DL, DH) :- mr17_ahead(T, S, O, FL, FH),
    obs_span(T, S, O, _, _, VL, VH), obs_pitch(T, S, C, Sn), camera(T, _, Fy, _, _), mr17_reach(T, O, R),
    AL is C - VL * Sn // Fy, EL is 2 + abs(VL) // Fy, AH is C - VH * Sn // Fy, EH is 2 + abs(VH) // Fy,
    AX is max(AL + EL, AH + EH), AN is min(AL - EL, AH - EH), AN >= 100,
    DL is FL * 1000 // AX, DH is (FH + R) * 1000 // AN + 1.

mr17_top(T, S, O, FL, FF, B1, A1L, A1H, B2, A2L, A2H) :- mr17_ahead(T, S, O, FL, FH),
    mr17_rows(T, S, O, _, _, _, V1, V2), obs_pitch(T, S, C, Sn), camera(T, _, Fy, _, _), mr17_reach(T, O, R),
    FF is FH + 2 * R,
    E1 is 2 + abs(V1) // Fy, A1 is C - V1 * Sn // Fy, B1 is V1 * C // Fy + Sn - E1,
    E2 is 2 + abs(V2) // Fy, A2 is C - V2 * Sn // Fy, B2 is V2 * C // Fy + Sn + E2,
    A1L is A1 - E1, A1H is A1 + E1, A2L is A2 - E2, A2H is A2 + E2, A1L >= 100, A2L >= 100.
mr17_ztop_lo(FL, FF, B, AL, AH, Z) :- ( B >= 0 -> Z is FL * B // AH ; Z is FF * B // AL - 1 ).
mr17_ztop_hi(FL, FF, B, AL, AH, Z) :- ( B >= 0 -> Z is FF * B // AL + 1 ; Z is FL * B // AH ).
mr17_size_of(T, S, O, HL, HH) :- mr17_rows(T, S, O, G, _, _, _, _),
    mr17_top(T, S, O, FL, FF, B1, A1L, A1H, B2, A2L, A2H),
    mr17_ztop_lo(FL, FF, B1, A1L, A1H, ZL), mr17_ztop_hi(FL, FF, B2, A2L, A2H, ZH), HL is G + ZL, HH is G + ZH.

% The intervals of every anchored box are stored once per run, before the cases (the driver's
% ml_mr_store/2): the cases, their verdicts and their explanations read them again.
:- dynamic mr17_depth_row/5, mr17_size_row/5.
ml_mr_store(mr17_store, [mr17_depth_row/5, mr17_size_row/5]).
mr17_store :-
    ml_forall_set(d(T, S, O, DL, DH), mr17_depth_of(T, S, O, DL, DH), assertz(mr17_depth_row(T, S, O, DL, DH))),
    ml_forall_set(s(T, S, O, HL, HH), mr17_size_of(T, S, O, HL, HH), assertz(mr17_size_row(T, S, O, HL, HH))).

mr17_dq(Q, T, S, O) :- depth_query(Q, T, S, O), once(mr17_depth_row(T, S, O, _, _)).
mr17_sq(Q, T, O) :- object_query(Q, size, T, _, O), once(mr17_size_row(T, _, O, _, _)).
testcase(mr17d(Q), mr17, sc3b) :- mr17_dq(Q, _, _, _).
testcase(mr17s(Q), mr17, sc3a) :- mr17_sq(Q, _, _).
case_query(mr17d(Q), Q) :- mr17_dq(Q, _, _, _).
case_query(mr17s(Q), Q) :- mr17_sq(Q, _, _).

violates(Ag, mr17d(Q), R) :- mr17_dq(Q, T, S, O), mag_answer(Ag, Q, D), mr17_depth_row(T, S, O, DL, DH),
    param(depth_round_mm, Rd), param(ground_slack_permille, P),
    ( D > DH + Rd + DH * P // 1000, R = farther_than_ground ; D < DL - Rd - DL * P // 1000, R = nearer_than_ground ).
mr17_short(Ag, Q, S) :- mr17_sq(Q, T, O), mag_answer(Ag, Q, H), H =< 100000, mr17_size_row(T, S, O, HL, _),
    param(ground_slack_permille, P), H < HL - 10 - abs(HL) * P // 1000.
mr17_tall(Ag, Q, S) :- mr17_sq(Q, T, O), mag_answer(Ag, Q, H), H =< 100000, mr17_size_row(T, S, O, _, HH),
    param(ground_slack_permille, P), H > HH + 10 + abs(HH) * P // 1000.
violates(Ag, mr17s(Q), shorter_than_ground) :- once(mr17_short(Ag, Q, _)).
violates(Ag, mr17s(Q), taller_than_ground) :- once(mr17_tall(Ag, Q, _)).

explain(Ag, mr17d(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17d(Q)), mr17_dq(Q, T, S, O),
    detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
explain(Ag, mr17s(Q), detection(T, S, O, Cl, F, X1, Y1, X2, Y2)) :- violated(Ag, mr17s(Q)), mr17_sq(Q, T, O),
    distinct(S, ( mr17_short(Ag, Q, S) ; mr17_tall(Ag, Q, S) )), detection(T, S, O, Cl, F, X1, Y1, X2, Y2).
