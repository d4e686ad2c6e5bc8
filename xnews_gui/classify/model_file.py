"""A topic model on disk: data only, never code.

The file is a NumPy ``.npz`` archive (a zip of ``.npy`` arrays) holding exactly:

    meta        UTF-8 JSON: format, version, labels, feature settings, confidence floor, card
    terms       the vocabulary, UTF-8, one term per line, in column order
    idf         float32 (features,)
    coef        float32 (classes, features), or (1, features) for two labels
    intercept   float32 (classes,) or (1,)
    train_keys  uint64 fingerprints of the training texts

It is read with ``np.load(allow_pickle=False)`` after checking that it is a zip of
those members within size limits: nothing in it is ever unpickled, so a crafted
file can be wrong but cannot run anything. Pickle-based models (older XNews,
``.joblib``) are refused before a byte of them is interpreted.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "xnews-topic-model"
FORMAT_VERSION = 2
MEMBERS = ("meta", "terms", "idf", "coef", "intercept", "train_keys")
MAX_FILE_BYTES = 512 * 1024 * 1024
MAX_UNPACKED_BYTES = 512 * 1024 * 1024  # the shipped model: 9 MB; 2 million features x 10 topics: 80 MB
MAX_META_BYTES = 4 * 1024 * 1024
_ZIP_MAGIC = b"PK\x03\x04"
# how a pickle (protocol 2+) or a joblib file (raw, zlib, xz, bz2, gzip, lzma) begins: only for the message
_PICKLE_STARTS = (b"\x80", b"x\x9c", b"x\xda", b"x\x01", b"x^", b"\xfd7zXZ", b"BZh", b"\x1f\x8b", b"]\x00\x00")


class ModelFileError(RuntimeError):
    """A file that is not a usable model; the message says why."""


def write_model(path: Path, arrays: dict, meta: dict) -> Path:
    """Write the archive through ``<path>.part`` and a rename (the name is kept as given)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"meta": _bytes_array(json.dumps(meta, ensure_ascii=False)), **arrays}
    missing = set(MEMBERS) - set(payload)
    if missing:
        raise ValueError(f"model arrays missing: {', '.join(sorted(missing))}")
    tmp = path.with_name(path.name + ".part")
    try:
        with open(tmp, "wb") as out:
            np.savez_compressed(out, **{name: payload[name] for name in MEMBERS})
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_model(path: Path) -> tuple[dict, dict]:
    """(meta, arrays) of a model file, or ``ModelFileError``. Never unpickles."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ModelFileError(f"no model file at {path}; train one with `python main.py train`") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ModelFileError(f"{path} is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ModelFileError(f"{path} is {info.st_size:,} bytes, more than a model can be ({MAX_FILE_BYTES:,})")
    with open(path, "rb") as f:
        head = f.read(8)
    if not head.startswith(_ZIP_MAGIC):
        if head.startswith(_PICKLE_STARTS):
            raise ModelFileError(
                f"{path} is a pickle-based model (an older XNews or another tool): refused, because loading a "
                "pickle can run code; retrain with `python main.py train`")
        raise ModelFileError(f"{path} is not a readable model file (damaged or not a model)")
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ModelFileError(f"{path} is not a readable model file (damaged or not a model): {exc}") from None
    names = sorted(e.filename for e in entries)
    if names != sorted(m + ".npy" for m in MEMBERS):
        raise ModelFileError(f"{path} is not an XNews topic model (it holds {', '.join(names[:8]) or 'nothing'})")
    if sum(e.file_size for e in entries) > MAX_UNPACKED_BYTES:
        raise ModelFileError(f"{path} unpacks to more than {MAX_UNPACKED_BYTES:,} bytes: refused")
    arrays = {}
    try:
        with np.load(path, allow_pickle=False) as archive:
            for name in MEMBERS:
                arrays[name] = archive[name]
    except Exception as exc:  # noqa: BLE001 - zlib, format, object arrays (pickles): all "not a model"
        raise ModelFileError(f"{path} is not a readable model file (damaged or not a model): "
                             f"{exc.__class__.__name__}: {exc}") from None
    meta = _meta(path, arrays.pop("meta"))
    return meta, arrays


def _meta(path: Path, raw: np.ndarray) -> dict:
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > MAX_META_BYTES:
        raise ModelFileError(f"{path} is not an XNews topic model (bad metadata)")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ModelFileError(f"{path} is not an XNews topic model (unreadable metadata)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not an XNews topic model")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path} uses model format {meta.get('format_version')!r}, this XNews reads format "
                             f"{FORMAT_VERSION}; retrain it with `python main.py train`")
    return meta


def terms_array(terms) -> np.ndarray:
    return _bytes_array("\n".join(terms))


def terms_from_array(raw: np.ndarray, expected: int | None = None) -> list[str]:
    """The vocabulary; with ``expected`` (the features the weights have), refused before it is decoded when
    it holds another number of terms (a small file of 50 million empty terms took 4 GB and 13 s to refuse)."""
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError("the vocabulary is not UTF-8 text")
    count = int(np.count_nonzero(raw == 10)) + 1 if raw.size else 0  # "\n" between terms
    if expected is not None and count != expected:
        raise ModelFileError(f"the vocabulary does not fit the weights: {expected:,} features, {count:,} terms")
    try:
        text = raw.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError("the vocabulary is not UTF-8 text") from None
    return text.split("\n") if text else []


def _bytes_array(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
