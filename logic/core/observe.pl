% What the frames show, and where an agent's own depth answers place each object (the Prolog twin
% of observe.lp; integer division truncates towards zero in both engines: clingo's / is //).

% Its parameters (box_slack_px, depth_round_mm, centre_span_permille, place_slack_permille) are
% declared with the core's in params.decl.

% The spans of the boxes and the placements at the agents' depth answers are stored once per run
% (ml_store_observations/0, called by the driver after the queries, before the cases): every MR
% that reads boxes asks them, many times over, and a stored fact is found through SWI-Prolog's
% indexes far more cheaply than a tabled call (a table per call variant, each costly to create).
% The stored rows are the distinct solutions, as tables would hold.
:- dynamic ml_obj_slack/6, ml_obj_centre/4, ml_obs_span/7, ml_place/9, ml_level/10.
obj_slack(T, O, KL, KT, KR, KB) :- ml_obj_slack(T, O, KL, KT, KR, KB).
obs_span(T, S, O, UL, UH, VL, VH) :- ml_obs_span(T, S, O, UL, UH, VL, VH).
place(Ag, T, S, O, XL, XH, YL, YH, Dc) :- ml_place(Ag, T, S, O, XL, XH, YL, YH, Dc).
level(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH) :- ml_level(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH).

ml_store_observations :-
    ml_forall_set(k(T, O, KL, KT, KR, KB), obj_slack_of(T, O, KL, KT, KR, KB),
                  assertz(ml_obj_slack(T, O, KL, KT, KR, KB))),
    ml_forall_set(c(T, O, PW, PH), obj_centre_of(T, O, PW, PH), assertz(ml_obj_centre(T, O, PW, PH))),
    ml_forall_set(s(T, S, O, UL, UH, VL, VH), obs_span_of(T, S, O, UL, UH, VL, VH),
                  assertz(ml_obs_span(T, S, O, UL, UH, VL, VH))),
    ml_forall_set(p(Ag, T, S, O, XL, XH, YL, YH, Dc), place_of(Ag, T, S, O, XL, XH, YL, YH, Dc),
                  assertz(ml_place(Ag, T, S, O, XL, XH, YL, YH, Dc))),
    ml_forall_set(l(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH), level_of(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH),
                  assertz(ml_level(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH))).
ml_forget_observations :- ml_clear([ml_obj_slack/6, ml_obj_centre/4, ml_obs_span/7, ml_place/9, ml_level/10]).

agent_camera(T) :- trajectory(T, Sc), scenario_camera(Sc, agent).
exact_turns(T) :- trajectory(T, Sc), scenario_turns(Sc, exact).

obs_whole(T, S, O, X1, Y1, X2, Y2) :- detection(T, S, O, _, _, X1, Y1, X2, Y2),
    \+ truncated(T, S, O), \+ occluded(T, S, O).

obs_slack(T, K) :- box_slack(T, K0), !, K = K0.
obs_slack(_, K) :- param(box_slack_px, K).

% obj_slack_of(T, O, KL, KT, KR, KB): per edge, its class's slack where the trajectory gives one,
% else the trajectory's; the largest over the classes its boxes name.
obj_class_slack(T, O, E, K) :- distinct(Cl, detection(T, _, O, Cl, _, _, _, _, _)),
    ( class_slack(T, Cl, E, K0) -> K = K0 ; obs_slack(T, K) ).
obj_edge_slack(T, O, E, K) :- aggregate_all(max(K1), obj_class_slack(T, O, E, K1), K).
obj_slack_of(T, O, KL, KT, KR, KB) :- distinct(T-O, detection(T, _, O, _, _, _, _, _, _)),
    obj_edge_slack(T, O, left, KL), obj_edge_slack(T, O, top, KT), obj_edge_slack(T, O, right, KR),
    obj_edge_slack(T, O, bottom, KB).

% obj_centre(T, O, PW, PH): the middle part of O's whole boxes that holds its centre's projection:
% its class's (class_centre/4) where the trajectory gives one, else centre_span_permille; the widest
% over the classes its boxes name.
obj_class_centre(T, O, PW, PH) :- distinct(Cl, detection(T, _, O, Cl, _, _, _, _, _)),
    ( class_centre(T, Cl, PW0, PH0) -> PW = PW0, PH = PH0 ; param(centre_span_permille, PW), PH = PW ).
obj_centre(T, O, PW, PH) :- ml_obj_centre(T, O, PW, PH).
obj_centre_of(T, O, PW, PH) :- distinct(T-O, detection(T, _, O, _, _, _, _, _, _)),
    aggregate_all(max(W), obj_class_centre(T, O, W, _), PW), aggregate_all(max(H), obj_class_centre(T, O, _, H), PH).

obs_span_of(T, S, O, UL, UH, VL, VH) :- obs_whole(T, S, O, X1, Y1, X2, Y2), camera(T, _, _, Cx, Cy),
    obj_slack(T, O, KL, KT, KR, KB), obj_centre(T, O, PW, PH), W is X2 + 1 - X1, H is Y2 + 1 - Y1,
    M is W * (1000 - PW) // 2000, N is H * (1000 - PH) // 2000,
    EL is ((W - M) * KL + M * KR + W - 1) // W, ER is (M * KL + (W - M) * KR + W - 1) // W,
    ET is ((H - N) * KT + N * KB + H - 1) // H, EB is (N * KT + (H - N) * KB + H - 1) // H,
    UL is X1 + M - EL - Cx, UH is X2 + 1 - M + ER - Cx, VL is Cy - (Y2 + 1 - N + EB), VH is Cy - (Y1 + N - ET).

obs_pitch(T, S, C, Sn) :- camera_pitch(T, S, P), trig(P, C, Sn).

depth_of(Ag, T, S, O, D) :- object_query(Q, depth, T, S, O), mag_answer(Ag, Q, D), D > 0.
depth_query(Q, T, S, O) :- object_query(Q, depth, T, S, O).

place_slack(Ag, T, S, O, Dc, E) :- depth_of(Ag, T, S, O, D), once(obs_span(T, S, O, _, _, _, _)),
    Dc is (D + 5) // 10, Dc > 0, Dc =< 100000, param(depth_round_mm, R), param(place_slack_permille, P),
    E is 1 + (R + 9) // 10 + Dc * P // 1000.
place_of(Ag, T, S, O, XL, XH, YL, YH, Dc) :- place_slack(Ag, T, S, O, Dc, E), obs_span(T, S, O, UL, UH, VL, VH),
    camera(T, Fx, Fy, _, _),
    XL is UL * Dc // Fx - E, XH is UH * Dc // Fx + E, YL is VL * Dc // Fy - E, YH is VH * Dc // Fy + E.

level_of(Ag, T, S, O, XL, XH, FL, FH, ZL, ZH) :- place(Ag, T, S, O, XL, XH, YL, YH, Dc), obs_pitch(T, S, C, Sn),
    ( Sn >= 0 -> PL is YL * Sn, PH is YH * Sn ; PL is YH * Sn, PH is YL * Sn ),
    FL is (Dc * C - PH) // 1000 - 1, FH is (Dc * C - PL) // 1000 + 1,
    ZL is (Dc * Sn + YL * C) // 1000 - 1, ZH is (Dc * Sn + YH * C) // 1000 + 1.

ivl_min_abs(L, _, L) :- L > 0, !.
ivl_min_abs(_, H, M) :- H < 0, !, M is -H.
ivl_min_abs(_, _, 0).
ivl_max_abs(L, H, M) :- M is max(abs(L), abs(H)).
