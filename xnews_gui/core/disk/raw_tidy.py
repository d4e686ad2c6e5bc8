"""Dead bytes out of the raw page packs.

A page crawled again (a list page on every pass) gets a new copy in the crawl's pack and
its page row points there: the old copy is dead. ``tidy_packs`` deletes the closed packs
no page row points into, and copies the live pages of packs mostly dead, and of the small
packs together, into new packs. The caller stores the new references, then calls
``Tidy.finish()``, which deletes the old packs: a crash in between leaves an extra copy,
never a page row pointing at nothing. Packs being written are locked by their writer and
left alone, and so are packs another tidier holds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from .raw_pages import MAX_PACK_BYTES, PACKS, RawPack, RawPageError, fcntl, lock, parse_reference, read_record

DEAD_SHARE = 0.5  # a closed pack with more dead bytes than this share is copied
SMALL_PACK = MAX_PACK_BYTES // 8  # closed packs under this size are merged when there are two or more


class Tidy:
    """What ``tidy_packs`` did: ``moved`` {old reference: new reference} for the caller to store, then
    ``finish()``; ``cancel()`` instead when they could not be stored (the old packs stay)."""

    def __init__(self, raw_root: Path):
        self.folder = Path(raw_root) / PACKS
        self.moved: dict[str, str] = {}
        self.emptied: list[str] = []  # packs to delete once the page rows point elsewhere
        self.freed_bytes = 0
        self._held: list[int] = []
        self._pack: RawPack | None = None

    def finish(self) -> None:
        """Delete the emptied packs, then let go of every pack held."""
        try:
            for name in self.emptied:
                try:
                    os.unlink(self.folder / name)
                except FileNotFoundError:
                    pass
        finally:
            self.cancel()

    def cancel(self) -> None:
        held, self._held = self._held, []
        for fd in held:
            os.close(fd)
        if self._pack is not None:
            self._pack.close()


def tidy_packs(raw_root: Path, references: Callable[[], Iterable[str]]) -> Tidy:
    """Plan and copy: ``references()`` gives every ``raw_path`` of the page log; it is called once
    the closed packs are locked here, so every page row of those packs is committed by then."""
    tidy = Tidy(raw_root)
    if fcntl is None or not tidy.folder.is_dir():
        return tidy  # without locks a pack being written cannot be told apart: nothing is touched
    try:
        sizes = _lock_closed_packs(tidy)
        if not sizes:
            return tidy
        live: dict[str, list[tuple[int, str]]] = {}
        for ref in references():
            parsed = parse_reference(ref)
            if parsed and parsed[0] in sizes:
                live.setdefault(parsed[0], []).append((parsed[1], ref))
        small = [name for name in live if sizes[name] < SMALL_PACK]
        copied = [name for name, refs in live.items()
                  if _live_bytes(refs) < (1 - DEAD_SHARE) * sizes[name] or (len(small) > 1 and name in small)]
        tidy.emptied = [name for name in sizes if name not in live] + copied
        if copied:
            tidy._pack = RawPack(raw_root)  # its packs stay locked until finish()
            for name in copied:
                for _, ref in sorted(live[name]):
                    try:
                        url, body = read_record(raw_root, ref)
                    except RawPageError:
                        continue  # a damaged record is not copied (its row keeps the old reference)
                    tidy.moved[ref] = tidy._pack.save(url, body)
            tidy.emptied = [name for name in tidy.emptied if name not in copied or
                            all(ref in tidy.moved for _, ref in live[name])]
        tidy.freed_bytes = sum(sizes[name] for name in tidy.emptied) - sum(
            parse_reference(ref)[2] for ref in tidy.moved.values())
    except BaseException:
        tidy.cancel()
        raise
    return tidy


def _lock_closed_packs(tidy: Tidy) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for path in sorted(tidy.folder.glob("*.pack")):
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:  # another tidier deleted it just now
            continue
        if not lock(fd, wait=False):
            os.close(fd)
            continue
        tidy._held.append(fd)
        info = os.fstat(fd)
        try:
            if os.stat(path).st_ino == info.st_ino:  # not deleted by a tidier that held it a moment ago
                sizes[path.name] = info.st_size
        except FileNotFoundError:
            pass
    return sizes


def _live_bytes(refs: list[tuple[int, str]]) -> int:
    return sum(parse_reference(ref)[2] for _, ref in refs)
