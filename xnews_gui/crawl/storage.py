"""Files the crawler writes whole: cached images (by SHA-256). Raw pages go to packs (core/disk/raw_pages.py)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..paths import image_file  # noqa: F401  (the image cache's layout, shared with the store)


_made_dirs: set[str] = set()


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a file."""
    parent = str(path.parent)
    if parent not in _made_dirs:
        os.makedirs(parent, exist_ok=True)
        _made_dirs.add(parent)
    tmp = f"{path}.part-{os.getpid()}-{threading.get_ident()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
