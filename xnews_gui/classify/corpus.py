"""Labelled training sets: a corpus folder ``<topic>/<file>.txt`` (or its .tar.xz), deduplicated.

This is the "training-file generation" step of the original XNews. VNTC ships as
``Train_Full.tar.xz`` / ``Test_Full.tar.xz`` of UTF-16 files; archives are unpacked
once into a cache folder (never next to the archive, which may sit in a repository
or on read-only media).
"""

from __future__ import annotations

import hashlib
import random
import re
import tarfile
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from platformdirs import user_cache_dir

from ..core.text.encoding import decode_html
from ..core.disk.files import MAX_PAGE_BYTES, read_file

TRAIN_NAMES = ("Train_Full", "train", "Train")
TEST_NAMES = ("Test_Full", "test", "Test")
_ARCHIVE_SUFFIXES = (".tar.xz", ".tar.gz", ".tgz", ".tar.bz2", ".tar")
_SPACES = re.compile(r"\s+")


class CorpusError(RuntimeError):
    pass


@dataclass(frozen=True)
class Doc:
    text: str
    label: str
    source: str = ""  # file path or "article:<id>"


def default_cache_dir() -> Path:
    return Path(user_cache_dir("xnews", appauthor=False)) / "corpora"


def read_text(path: Path) -> str:
    """A text file in any common encoding (VNTC is UTF-16 with BOM), NFC, without the BOM.

    Only a regular file of at most 5 MB is read (``FileRefused`` otherwise): a device or a FIFO
    named by mistake must not eat the memory or hang."""
    text, _ = decode_html(read_file(path, MAX_PAGE_BYTES, "text"))
    return text.replace("\r\n", "\n").lstrip("\ufeff")


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(_ARCHIVE_SUFFIXES)


def unpack(archive: Path, cache_dir: Path | None = None) -> Path:
    """Unpack ``archive`` under ``cache_dir`` once; return the folder holding its contents."""
    cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
    stat = archive.stat()
    stem = archive.name
    for suffix in _ARCHIVE_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    target = cache_dir / f"{stem}-{stat.st_size}"
    done = target / ".unpacked"
    if not done.exists():
        target.mkdir(parents=True, exist_ok=True)
        try:
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise CorpusError(f"cannot unpack {archive}: {exc}") from None
        done.write_text(archive.name)
    # An archive usually holds one top folder (Train_Full/); step into it.
    children = [p for p in target.iterdir() if p.is_dir()]
    if len(children) == 1 and not _has_topic_files(target):
        return children[0]
    return target


def _has_topic_files(folder: Path) -> bool:
    return any(p.is_file() and not p.name.startswith(".") for p in folder.iterdir())


def resolve(path: Path, cache_dir: Path | None = None) -> Path:
    """A topic folder, or an archive of one -> the folder of topics."""
    path = Path(path)
    if is_archive(path):
        return unpack(path, cache_dir)
    if not path.is_dir():
        raise CorpusError(f"no corpus at {path}: expected a folder <topic>/<file>.txt or a .tar.xz")
    return path


def find_splits(root: Path, cache_dir: Path | None = None) -> tuple[Path, Path | None]:
    """(train folder, test folder or None) for a corpus root.

    The root may be a topic folder itself, or hold ``Train_Full``/``Test_Full``
    (VNTC's names; ``train``/``test`` also work) as folders or archives.
    """
    root = Path(root)
    if is_archive(root):
        return resolve(root, cache_dir), None
    train = _split(root, TRAIN_NAMES, cache_dir)
    if train is None:
        return resolve(root, cache_dir), None
    return train, _split(root, TEST_NAMES, cache_dir)


def _split(root: Path, names: Sequence[str], cache_dir: Path | None) -> Path | None:
    for name in names:
        if (root / name).is_dir():
            return root / name
        for suffix in _ARCHIVE_SUFFIXES:
            if (root / (name + suffix)).is_file():
                return unpack(root / (name + suffix), cache_dir)
    return None


def load_folder(folder: Path, limit_per_label: int | None = None) -> list[Doc]:
    """Every ``<topic>/*.txt`` under ``folder``, label = the topic folder's name, in a stable order."""
    folder = Path(folder)
    topics = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not topics:
        raise CorpusError(f"{folder} has no topic folders (<topic>/<file>.txt)")
    docs = []
    for topic in topics:
        files = sorted(p for p in topic.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
        for path in files[:limit_per_label]:
            text = read_text(path)
            if text.strip():
                docs.append(Doc(text, topic.name.strip(), str(path)))
    if not docs:
        raise CorpusError(f"{folder} has topic folders but no non-empty .txt files")
    return docs


# --- duplicates ---------------------------------------------------------------------
def text_key(text: str) -> int:
    """A 64-bit fingerprint of the text after NFC and whitespace normalisation."""
    canon = _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()
    return int.from_bytes(hashlib.blake2b(canon.encode("utf-8"), digest_size=8).digest(), "little")


def dedup(docs: Iterable[Doc]) -> tuple[list[Doc], int]:
    """Keep the first of each set of identical texts; returns (kept, number removed)."""
    seen: set[int] = set()
    kept = []
    removed = 0
    for doc in docs:
        key = text_key(doc.text)
        if key in seen:
            removed += 1
            continue
        seen.add(key)
        kept.append(doc)
    return kept, removed


def remove_known(docs: Iterable[Doc], known_keys: set[int]) -> tuple[list[Doc], int]:
    """Drop documents whose text is in ``known_keys`` (e.g. test documents seen in training)."""
    docs = list(docs)
    kept = [d for d in docs if text_key(d.text) not in known_keys]
    return kept, len(docs) - len(kept)


@dataclass
class TrainingSet:
    train: list[Doc]
    test: list[Doc]
    description: dict
    original_test: list[Doc] = field(default_factory=list)  # a separate test set as given (the published protocol)

    @property
    def labels(self) -> list[str]:
        return sorted({d.label for d in self.train})


def build(train_docs: list[Doc], test_docs: list[Doc] | None = None, *, test_fraction: float = 0.2,
          seed: int = 13, source: str = "") -> TrainingSet:
    """Deduplicate, split (when no test set is given) and remove train/test overlap."""
    train, dup_train = dedup(train_docs)
    if test_docs is None:
        train, test = stratified_split(train, test_fraction, seed)
        dup_test = overlap = 0
    else:
        test, dup_test = dedup(test_docs)
        keys = {text_key(d.text) for d in train}
        test, overlap = remove_known(test, keys)
    unknown = {d.label for d in test} - {d.label for d in train}
    if unknown:
        test = [d for d in test if d.label not in unknown]
    description = {
        "source": source,
        "train_docs": len(train),
        "test_docs": len(test),
        "duplicates_removed_train": dup_train,
        "duplicates_removed_test": dup_test,
        "test_overlap_removed": overlap,
        "test_split": "held-out fraction %.2f, seed %d" % (test_fraction, seed) if test_docs is None
        else "separate test set",
        "train_per_label": dict(sorted(Counter(d.label for d in train).items())),
        "test_per_label": dict(sorted(Counter(d.label for d in test).items())),
    }
    if unknown:
        description["test_labels_dropped"] = sorted(unknown)
    known = {d.label for d in train}
    original = [d for d in test_docs if d.label in known] if test_docs is not None else []
    return TrainingSet(train, test, description, original)


def stratified_split(docs: list[Doc], fraction: float, seed: int) -> tuple[list[Doc], list[Doc]]:
    """A deterministic per-label split; labels with fewer than 2 documents stay in train."""
    rng = random.Random(seed)
    by_label: dict[str, list[Doc]] = {}
    for d in docs:
        by_label.setdefault(d.label, []).append(d)
    train, test = [], []
    for label in sorted(by_label):
        group = list(by_label[label])
        rng.shuffle(group)
        n_test = int(round(len(group) * fraction)) if len(group) >= 2 else 0
        n_test = min(n_test, len(group) - 1)
        test.extend(group[:n_test])
        train.extend(group[n_test:])
    return train, test
