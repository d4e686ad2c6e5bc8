"""Raw pages: the fetched HTML, appended to pack files, and the one reader of what the page log points to.

Creating a file per page costs the kernel ~20 times what appending the same bytes to an
open file does, so a crawl appends its pages to ``<raw>/packs/<stamp>-<pid>-<n>.pack``
(a new pack per crawl, a fresh one past ``MAX_PACK_BYTES``). A page row's ``raw_path``
says where: ``packs/<name>.pack#<offset>+<length>``. Each record is

    b"XNRP" | url length (u32, big-endian) | body length (u32) | url | body | b"XNRE"

The page row is written only after its record (write first, record after), and no page
row ever points into a record cut short by a crash; ``scan_pack`` stops at such a torn
tail. Packs are not fsynced page by page (neither were the single files). Databases
made before the packs name single files, ``<md5[:2]>/<md5>.html``; ``read_raw`` reads both.
"""

from __future__ import annotations

import os
import re
import stat
import struct
import threading
import time
from pathlib import Path

from .files import FileRefused, file_inside, read_file

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

PACKS = "packs"
MAX_PACK_BYTES = 64 * 1024 * 1024  # a pack is closed past this size and the next page starts a new one
MAX_RECORD_BYTES = 64 * 1024 * 1024  # the reader's cap (a page is at most the fetcher's cap, 5 MB by default)

_HEAD = struct.Struct(">4sII")
_MAGIC, _END = b"XNRP", b"XNRE"
_OVERHEAD = _HEAD.size + len(_END)
_PACK_REF = re.compile(r"packs/([A-Za-z0-9][A-Za-z0-9_.-]{0,120}\.pack)#(\d{1,15})\+(\d{1,10})")
_FILE_REF = re.compile(r"[0-9a-f]{2}/[0-9a-f]{32}\.html")
_BINARY = getattr(os, "O_BINARY", 0)


class RawPageError(ValueError):
    """A raw page that cannot be read: a bad reference, a missing pack or file, a damaged record."""


class RawPack:
    """Appends raw pages to pack files; ``save`` may be called from several threads at once.

    Every pack this writer made stays locked (``fcntl.flock``) until ``close()``: the crawl
    closes it once its page rows are committed, so ``raw_tidy`` never judges a pack whose
    rows are still on their way (``raw_tidy`` skips locked packs)."""

    def __init__(self, raw_root: Path, max_bytes: int = MAX_PACK_BYTES):
        self.folder = Path(raw_root) / PACKS
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._full: list[int] = []  # packs rolled over: no longer written, still locked
        self._name = ""
        self._size = 0
        self._count = 0  # packs opened by this writer (names stay unique within one second)

    def save(self, url: str, body: bytes) -> str:
        """Append one page; returns its reference for the page log. Raises OSError (the pack stays usable)."""
        address = url.encode("utf-8", "surrogatepass")
        parts = [_HEAD.pack(_MAGIC, len(address), len(body)), address, body, _END]
        length = _OVERHEAD + len(address) + len(body)
        with self._lock:
            if self._fd is None or (self._size and self._size + length > self.max_bytes):
                self._open_next()
            offset = self._size
            try:
                _write_all(self._fd, parts, length)
            except BaseException:
                self._cut_back(offset)
                raise
            self._size = offset + length
            return f"{PACKS}/{self._name}#{offset}+{length}"

    def close(self) -> None:
        """Close (and unlock) every pack written; a later ``save`` starts a new one."""
        with self._lock:
            self._roll()
            full, self._full = self._full, []
            for fd in full:
                os.close(fd)

    def _open_next(self) -> None:
        """A new pack, locked before anyone can see it: made under a temporary name, then renamed."""
        self._roll()
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        while True:
            self._count += 1
            name = f"{stamp}-{os.getpid()}-{self._count}.pack"  # with the pid: no other process makes it
            if not (self.folder / name).exists():
                break
        temporary = self.folder / f"{name}.new"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | _BINARY, 0o644)
        try:
            lock(fd, wait=True)
            os.replace(temporary, self.folder / name)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._name, self._size = fd, name, 0

    def _roll(self) -> None:
        if self._fd is not None:
            self._full.append(self._fd)
            self._fd = None

    def _cut_back(self, offset: int) -> None:
        """A failed append (a full disk): cut its part-written record, or give up on this pack."""
        try:
            os.ftruncate(self._fd, offset)
        except OSError:
            self._roll()

    def __enter__(self) -> RawPack:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def lock(fd: int, wait: bool) -> bool:
    """An exclusive advisory lock on an open pack; False when someone else holds it. Without
    ``fcntl`` (not POSIX) nothing is locked (and ``raw_tidy`` leaves packs alone)."""
    if fcntl is None:
        return wait
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


def _write_all(fd: int, parts: list[bytes], length: int) -> None:
    done = os.writev(fd, parts) if hasattr(os, "writev") else 0
    if done < length:  # a short write (or no writev): the rest from one buffer
        rest = memoryview(b"".join(parts))[done:]
        while rest:
            rest = rest[os.write(fd, rest):]


def read_raw(raw_root: Path, raw_path: str) -> bytes:
    """The raw page a page row's ``raw_path`` names: a pack record or (older databases) a single file.

    ``raw_path`` comes from a database a user may have imported: anything but these two forms,
    or anything leading outside ``raw_root``, raises ``RawPageError``; so does a missing or
    damaged page.
    """
    ref = _PACK_REF.fullmatch(raw_path or "")
    if ref:
        return read_record(raw_root, raw_path)[1]
    if _FILE_REF.fullmatch(raw_path or ""):
        try:
            return read_file(file_inside(raw_root, raw_path, "raw page"), MAX_RECORD_BYTES, "raw page")
        except FileNotFoundError:
            raise RawPageError(f"raw page {raw_path!r} is missing from {raw_root}") from None
        except (FileRefused, OSError) as exc:
            raise RawPageError(f"raw page {raw_path!r} cannot be read: {exc}") from None
    raise RawPageError(f"{str(raw_path)[:200]!r} is not a raw page reference "
                       "(packs/<name>.pack#<offset>+<length> or <xx>/<md5>.html)")


def parse_reference(raw_path: str) -> tuple[str, int, int] | None:
    """(pack name, offset, length) of a pack reference, else None."""
    ref = _PACK_REF.fullmatch(raw_path or "")
    return (ref.group(1), int(ref.group(2)), int(ref.group(3))) if ref else None


def read_record(raw_root: Path, raw_path: str) -> tuple[str, bytes]:
    """(url, page) of the pack record ``raw_path`` names; RawPageError otherwise."""
    parsed = parse_reference(raw_path)
    if parsed is None:
        raise RawPageError(f"{str(raw_path)[:200]!r} is not a raw page pack reference")
    name, offset, length = parsed
    if not _OVERHEAD <= length <= MAX_RECORD_BYTES:
        raise RawPageError(f"raw page {raw_path!r}: a record of {length:,} bytes cannot be right")
    try:
        path = file_inside(raw_root, f"{PACKS}/{name}", "raw page pack")
        fd = os.open(path, os.O_RDONLY | _BINARY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise RawPageError(f"raw page {raw_path!r}: the pack {name} is missing from {raw_root}") from None
    except (FileRefused, OSError) as exc:
        raise RawPageError(f"raw page {raw_path!r} cannot be read: {exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RawPageError(f"raw page {raw_path!r}: {name} is not a regular file")
        data = _pread_all(fd, length, offset)
    except OSError as exc:
        raise RawPageError(f"raw page {raw_path!r} cannot be read: {exc}") from None
    finally:
        os.close(fd)
    record = _parse_record(data, length)
    if record is None:
        raise RawPageError(f"raw page {raw_path!r}: no whole page there (the pack is cut short or damaged)")
    return record


def _pread_all(fd: int, length: int, offset: int) -> bytes:
    chunks, got = [], 0
    while got < length:
        if hasattr(os, "pread"):
            chunk = os.pread(fd, length - got, offset + got)
        else:
            os.lseek(fd, offset + got, os.SEEK_SET)
            chunk = os.read(fd, length - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _parse_record(data: bytes, length: int) -> tuple[str, bytes] | None:
    """(url, page) of one whole record of ``length`` bytes, else None."""
    if len(data) != length or length < _OVERHEAD:
        return None
    magic, url_len, body_len = _HEAD.unpack_from(data)
    if magic != _MAGIC or _OVERHEAD + url_len + body_len != length or data[-len(_END):] != _END:
        return None
    url = data[_HEAD.size:_HEAD.size + url_len].decode("utf-8", "replace")
    return url, data[_HEAD.size + url_len:length - len(_END)]


def scan_pack(path: Path):
    """(url, reference) of each whole record of a pack, in order; stops at a torn or damaged tail."""
    path = Path(path)
    with open(path, "rb") as handle:
        offset = 0
        while True:
            head = handle.read(_HEAD.size)
            if len(head) < _HEAD.size:
                return
            magic, url_len, body_len = _HEAD.unpack(head)
            length = _OVERHEAD + url_len + body_len
            if magic != _MAGIC or length > MAX_RECORD_BYTES:
                return
            record = _parse_record(head + handle.read(length - _HEAD.size), length)
            if record is None:
                return
            yield record[0], f"{PACKS}/{path.name}#{offset}+{length}"
            offset += length

