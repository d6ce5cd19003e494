"""Files written whole or not at all: each goes through a temporary file in its own folder and a
rename, so a reader never sees half a file and a failed write leaves nothing behind. Every layer
writes its outputs through these helpers, so the rule is stated once."""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path


@functools.cache
def _umask() -> int:
    """The process's umask, read once (reading it means setting it, which must not race a write)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _temp_beside(path: Path) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(tmp)


def replace_whole(
    path: Path, write: Callable[[Path], object], *, shared: bool = True, durable: bool = False
) -> None:
    """Call `write(tmp)` to write the new content into a temporary file beside `path`, then rename
    it over `path`. `shared`: readable as any file the user creates (temporary files start private);
    `durable`: on disk before the rename (a journal that must survive a crash). An OSError (disk
    full, permissions) propagates after the temporary file is removed."""
    tmp = _temp_beside(path)
    try:
        write(tmp)
        if durable:
            with tmp.open("rb+") as fh:
                os.fsync(fh.fileno())
        if shared:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_whole(path: Path, text: str, *, durable: bool = False) -> None:
    """Write `text` (UTF-8, newlines as given) to `path`, whole or not at all; its folder is made
    when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_whole(path, lambda tmp: tmp.write_text(text, encoding="utf-8", newline=""), durable=durable)


def write_bytes_whole(path: Path, blob: bytes) -> None:
    """Write `blob` to `path`, whole or not at all; its folder is made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_whole(path, lambda tmp: tmp.write_bytes(blob))


def write_all_whole(files: Mapping[Path, str]) -> None:
    """Write several text files so that they appear together: every one to a temporary file first,
    then all renamed into place (nothing is renamed if one of them cannot be written)."""
    temps: list[tuple[Path, Path]] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temp_beside(path)
            temps.append((tmp, path))
            tmp.write_text(text, encoding="utf-8", newline="\n")
            os.chmod(tmp, 0o666 & ~_umask())
        for tmp, path in temps:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        raise
