"""Where XNews keeps its data: --data-dir, else $XNEWS_HOME, else the per-user data folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from platformdirs import user_data_dir

PACKAGE_ROOT = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_ROOT.parent
RESOURCES = PROJECT_ROOT / "resources"
BUNDLED_MODEL = RESOURCES / "model" / "topic.npz"
BUNDLED_PROFILES = PROJECT_ROOT / "profiles"


class DataDirError(RuntimeError):
    """``problem`` (what is wrong with the folder) and, for the command line, how to choose another."""

    def __init__(self, problem: str, advice: str = "choose another with --data-dir or XNEWS_HOME"):
        super().__init__(f"{problem}; {advice}" if advice else problem)
        self.problem = problem


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
    if path.exists() and not path.is_dir():
        raise DataDirError(f"the data folder {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        # a name of this process's own: commands started together must not delete each other's probe
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-", delete=True) as probe:
            probe.write(b"ok")
            probe.flush()
    except OSError as exc:
        raise DataDirError(f"the data folder {path} is not writable ({exc.strerror or exc})") from None
    return path


def check_writable(path: Path) -> None:
    """``ensure_writable`` without making anything: the folder, or the nearest folder above it that exists,
    must be one this user can write to (a folder typed in Settings is made at the next start)."""
    path = Path(path)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        why = "a file, not a folder" if existing == path else f"{existing} is a file, not a folder"
        raise DataDirError(f"the data folder {path} is not writable ({why})", advice="")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise DataDirError(f"the data folder {path} is not writable (permission denied or a read-only disk)",
                           advice="")


def database_path(root: Path) -> Path:
    return root / "xnews.sqlite3"


def raw_pages_dir(root: Path) -> Path:
    return root / "raw"


def image_cache_dir(root: Path) -> Path:
    return root / "images"


def logs_dir(root: Path) -> Path:
    """The app's log (xnews.log) and the stacks of a fatal crash (crash.log)."""
    return root / "logs"


def models_dir(root: Path) -> Path:
    """The topic models trained for this data folder and which one is in use (services/model_registry.py)."""
    return Path(root) / "models"


IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
                    "image/svg+xml": "svg", "image/avif": "avif"}


def image_file(images_root, sha256: str, content_type: str) -> Path:
    """Where the image cache keeps an image: <root>/<sha[:2]>/<sha>.<ext> (content-addressed)."""
    ext = IMAGE_EXTENSIONS.get(content_type.split(";")[0].strip().lower(), "img")
    return Path(images_root) / sha256[:2] / f"{sha256}.{ext}"
