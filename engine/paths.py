"""Where a file named in data may be read from.

Facts and trajectory files are data, and the paths in them too: a frame path that is absolute,
climbs out with '..', or is a symbolic link pointing elsewhere would let a data file hand any file
on the machine to a model server or into a report. So a named file is read only when it lies
inside the folder it belongs to, judged after following symbolic links.
"""

from __future__ import annotations

from pathlib import Path

TRAJECTORY_FILE = "trajectory.json"  # marks a trajectory folder (metalogic.extract.trajectory.META_FILE)


def inside(path: Path, folder: Path) -> bool:
    """Does `path` lie inside `folder`, once both have their symbolic links followed?"""
    return path.resolve().is_relative_to(folder.resolve())


def frame_place(path: Path, scene_root: Path) -> Path | None:
    """Where a frame file really is, if it may be read: inside the run's scene root, or inside a
    trajectory folder (`metalogic extract` names frames in the trajectory folders beside the facts
    folder). None for any other file. The scene root comes from run.json, which is data too, so it
    counts only when it is not the file system's root or above the home folder (open_root)."""
    real = path.resolve()
    if real.is_relative_to(scene_root.resolve()) and open_root(scene_root):
        return real
    if any((folder / TRAJECTORY_FILE).is_file() for folder in real.parents):
        return real
    return None


def open_root(folder: Path) -> bool:
    """May `folder` be a scene root, one whose files frames may be? Any folder but the file
    system's root and the folders that hold the home folder (scene_root = "/" or "/home" would open
    every file on the machine, or every user's)."""
    real = folder.resolve()
    return real != Path(real.anchor) and not Path.home().resolve().is_relative_to(real)
