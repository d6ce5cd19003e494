"""Frames as data URLs for vision models, with the tracked boxes drawn on them.

Boxes are drawn in distinct colours with the object's label above each box, so the prompt can
refer to "the mug o2 (red box)". Images are re-encoded as PNG only when something is drawn or the
frame is scaled down; the bytes are hashed so that the response cache keys on image content.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

from metalogic.engine.errors import MetalogicError

Box = tuple[int, int, int, int]
COLOURS = (
    ("red", (230, 25, 75)),
    ("blue", (0, 130, 200)),
    ("green", (60, 180, 75)),
    ("orange", (245, 130, 48)),
    ("purple", (145, 30, 180)),
    ("cyan", (70, 240, 240)),
    ("magenta", (240, 50, 230)),
    ("brown", (170, 110, 40)),
)
MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp"}


@dataclass(frozen=True)
class PromptImage:
    data_url: str
    sha256: str  # of the encoded bytes: what the response cache keys on
    caption: str


def colour_name(i: int) -> str:
    return COLOURS[i % len(COLOURS)][0]


def frame_image(
    path: Path, caption: str, boxes: list[tuple[str, Box]], max_side: int = 0, shown_as: str = ""
) -> PromptImage:
    """The frame at `path` with `boxes` (label, box) drawn in the colours of COLOURS, as a data URL."""
    if not path.is_file():
        raise MetalogicError.single(
            f"frame image not found: {path}",
            where=shown_as,
            expected="the frame files named by frame/3, relative to the run's scene_root (run.json)",
            fix="check scene_root in run.json, or ask without images: --view text",
        )
    raw = path.read_bytes()
    mime = MIME.get(path.suffix.lower())
    if not boxes and not max_side and mime:
        _identify(raw, path)  # sent as it is: it must be an image all the same
        return PromptImage(
            f"data:{mime};base64,{base64.b64encode(raw).decode()}", hashlib.sha256(raw).hexdigest(), caption
        )
    data = _draw(raw, boxes, max_side, path)
    return PromptImage(
        f"data:image/png;base64,{base64.b64encode(data).decode()}", hashlib.sha256(data).hexdigest(), caption
    )


def _identify(raw: bytes, path: Path) -> None:
    """Refuse bytes that are no image (read from their header; nothing is decoded)."""
    try:
        from PIL import Image
    except ImportError:
        return
    try:
        with Image.open(io.BytesIO(raw)):
            pass
    except (OSError, ValueError, SyntaxError, ImportError, Image.DecompressionBombError) as exc:
        raise _unreadable(path, raw, exc) from None


def _unreadable(path: Path, raw: bytes, exc: Exception) -> MetalogicError:
    """A frame PIL cannot read, named by its file (PIL names the in-memory buffer it read from,
    '<_io.BytesIO object at 0x...>', which tells a user nothing)."""
    from PIL import UnidentifiedImageError

    # Once Ultralytics is imported, its patched Image.open answers bytes PIL cannot identify by
    # importing an optional HEIF plugin, which is not installed: the same "not an image".
    if isinstance(exc, (UnidentifiedImageError, ImportError)):
        why = f"it is not an image file (it starts with {raw[:16]!r})"
    else:
        why = re.sub(r"<_io\.BytesIO object at 0x[0-9a-fA-F]+>", "the file", str(exc)) or type(exc).__name__
    return MetalogicError.single(
        f"cannot read frame image {path}: {why}",
        expected="a PNG or JPEG file",
        fix="re-extract the trajectory, or ask with --view text",
    )


def _draw(raw: bytes, boxes: list[tuple[str, Box]], max_side: int, path: Path) -> bytes:
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise MetalogicError.single(
            "drawing boxes on frames needs Pillow, which is not installed",
            fix="pip install 'metalogic[agents]', or ask with --view text",
        ) from None
    try:
        img = Image.open(io.BytesIO(raw)).convert("RGB")
    except (
        OSError,
        ValueError,
        SyntaxError,
        ImportError,
        Image.DecompressionBombError,
    ) as exc:  # PIL's ways to fail
        raise _unreadable(path, raw, exc) from None
    scale = 1.0
    if max_side and max(img.size) > max_side:
        scale = max_side / max(img.size)
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))))
    draw = ImageDraw.Draw(img)
    width = max(2, round(max(img.size) / 200))
    for i, (label, (x1, y1, x2, y2)) in enumerate(boxes):
        rgb = COLOURS[i % len(COLOURS)][1]
        box = [round(x1 * scale), round(y1 * scale), round(x2 * scale), round(y2 * scale)]
        draw.rectangle(box, outline=rgb, width=width)
        tx, ty = box[0], max(0, box[1] - 12)
        tw = draw.textlength(label)
        draw.rectangle([tx, ty, tx + tw + 4, ty + 11], fill=rgb)
        draw.text((tx + 2, ty), label, fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()
