"""Where XNews keeps its data: --data-dir, else $XNEWS_HOME, else the per-user data folder."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

PACKAGE_ROOT = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_ROOT.parent
RESOURCES = PROJECT_ROOT / "resources"
BUNDLED_PROFILES = PROJECT_ROOT / "profiles"


class DataDirError(RuntimeError):
    pass


def data_dir(override: str | os.PathLike | None = None) -> Path:
    if override:
        path = Path(override)
    elif os.environ.get("XNEWS_HOME"):
        path = Path(os.environ["XNEWS_HOME"])
    else:
        path = Path(user_data_dir("xnews", appauthor=False))
    return path.expanduser()


def ensure_writable(path: Path) -> Path:
    """Create the folder if needed and prove we can write there; clear error if not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        raise DataDirError(
            f"the data folder {path} is not writable ({exc.strerror or exc}); "
            "choose another with --data-dir or XNEWS_HOME"
        ) from None
    return path


def database_path(root: Path) -> Path:
    return root / "xnews.sqlite3"


def raw_pages_dir(root: Path) -> Path:
    return root / "raw"


def image_cache_dir(root: Path) -> Path:
    return root / "images"


def models_dir(root: Path) -> Path:
    return root / "models"
