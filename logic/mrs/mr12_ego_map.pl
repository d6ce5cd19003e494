% MR12 ego and map: the relation of two objects as seen and their direction on the map describe one
% arrangement, so the pair of answers must be one a truthful agent can give: an entry of the table
% ego_map/2, derived from the truth semantics by model finding (logic/core/compat.facts).
:- include('mr12_ego_map.decl').

% Only for objects in view as the table's derivation placed them (see mr12_ego_map.lp).
mr12_seen(T, S, O) :- once((obs_span(T, S, O, UL, UH, VL, VH), camera(T, Fx, Fy, _, _))), UL >= -Fx, UH =< Fx,
    VL >= -Fy, VH =< Fy.
mr12_frame(T, S) :- camera_pitch(T, S, P), P >= -60, P =< 30.
testcase(mr12(Qe, Qm), mr12, sc4a) :- pair_query(Qe, obj_dir, T, S, A, B), pair_query(Qm, map_dir, T, S, A, B),
    mr12_frame(T, S), mr12_seen(T, S, A), mr12_seen(T, S, B).
mr12_of(mr12(Qe, Qm), Qe, Qm).
case_query(C, X) :- mr12_of(C, Qe, Qm), member(X, [Qe, Qm]).
violates(Ag, mr12(Qe, Qm), ego_against_map) :- dir_answer(Ag, Qe, E), dir_answer(Ag, Qm, M), \+ ego_map(E, M).
