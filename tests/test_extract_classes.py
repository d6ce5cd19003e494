"""A track whose detector class changes is cut there (extract/boxes.py split_class_switches): the
tracker had carried one id from one object to another."""

from __future__ import annotations

from metalogic.extract.boxes import Detection, split_class_switches


def test_a_track_that_changes_class_is_cut_where_it_changes() -> None:
    # household seed 5151 episode 4, shipped detector: ByteTrack's id 2 went from the mug (states
    # 0-1) to the duck beside it (states 4-8); the oracle then answered the duck's depth for the
    # mug's box and broke MR17 twice
    dets = [
        Detection(0, 2, "mug", 654, (206, 96, 226, 116)),
        Detection(0, 3, "duck", 630, (226, 84, 237, 95)),
        Detection(1, 2, "mug", 769, (211, 102, 233, 124)),
        Detection(4, 2, "duck", 769, (219, 104, 235, 120)),
        Detection(6, 2, "duck", 769, (220, 104, 235, 119)),
        Detection(8, 2, "duck", 769, (220, 103, 236, 119)),
    ]
    got = split_class_switches(dets)
    assert [(d.state, d.track, d.cls) for d in got] == [
        (0, 2, "mug"),
        (0, 3, "duck"),
        (1, 2, "mug"),
        (4, 4, "duck"),  # a new id above every id in use
        (6, 4, "duck"),
        (8, 4, "duck"),
    ]
    assert [d.box for d in got] == [d.box for d in dets]


def test_each_later_run_of_a_class_gets_its_own_id_and_steady_tracks_keep_theirs() -> None:
    dets = [Detection(s, 7, c, 900, (0, 0, 9, 9)) for s, c in enumerate(["cup", "cup", "bowl", "cup"])]
    dets += [Detection(s, 1, "car", 900, (20, 0, 29, 9)) for s in range(4)]
    got = split_class_switches(dets)
    assert [d.track for d in got] == [7, 7, 8, 9, 1, 1, 1, 1]
    assert split_class_switches(dets[4:]) == dets[4:]


def test_ground_truth_tracks_are_left_alone() -> None:
    dets = [Detection(0, "o1", "cup", 1000, (0, 0, 9, 9)), Detection(1, "o1", "bowl", 1000, (0, 0, 9, 9))]
    assert split_class_switches(dets) == dets
