"""Reading files named by users and by profiles: regular files only, size-capped, inside their folder.

A profile's ``self_test.file``, a page given to ``extract``, a profile or an
``xnews.conf`` being imported may name ``/dev/zero``, a FIFO, ``/etc/shadow`` or
a 120 MB file. ``read_file`` refuses anything that is not a regular file and
stops at a cap; ``file_inside`` keeps a relative path inside its folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_PAGE_BYTES = 5 * 1024 * 1024  # a saved article page (as the crawler's fetch cap)
MAX_PROFILE_BYTES = 1024 * 1024  # a profile or an xnews.conf: a few KB in practice


class FileRefused(ValueError):
    """A file that is not read; the message says which and why."""


def read_file(path: str | os.PathLike, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; ``FileRefused`` or ``OSError`` otherwise."""
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:  # stat first: opening a FIFO or a device can block or have effects
        info = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(2, "No such file", str(path)) from None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"{path} is not a regular file (a device, a pipe or a socket): not read as a {what}")
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)  # the file opened is the one checked, even if the name was swapped meanwhile
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{path} is not a regular file: not read as a {what}")
        if info.st_size > max_bytes:
            raise FileRefused(f"{path} is {info.st_size:,} bytes: a {what} may be at most {max_bytes:,}")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise FileRefused(f"{path} grew past {max_bytes:,} bytes while read: a {what} may be at most that")
        return b"".join(chunks)
    finally:
        os.close(fd)


def file_inside(folder: str | os.PathLike, relative: str, what: str = "file") -> Path:
    """``folder / relative``, refused when ``relative`` is absolute or leads out of ``folder`` (links followed)."""
    if not relative or os.path.isabs(relative) or Path(relative).drive:
        raise FileRefused(f"{what} {relative!r} must be a path relative to {folder}")
    base = Path(folder).resolve()
    path = (base / relative).resolve()
    if path != base and base not in path.parents:
        raise FileRefused(f"{what} {relative!r} leads outside {base}: refused")
    return path
