"""Keep every library offline: nothing may download at run time.

Call `ensure_offline()` before importing Ultralytics, Hugging Face or sentence-transformers code.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def ensure_offline(config_dir: Path | None = None) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_VERBOSE", "False")
    # Ultralytics writes settings under YOLO_CONFIG_DIR and downloads a font unless one is there.
    cfg = Path(
        os.environ.get("YOLO_CONFIG_DIR") or config_dir or Path.home() / ".cache" / "metalogic" / "yolo"
    )
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    font = cfg / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        try:
            import matplotlib

            src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            font.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, font)
        except (ImportError, OSError):
            pass
