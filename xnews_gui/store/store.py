"""``Store``: the one object that owns XNews's SQLite database.

    store = Store.open(data_dir)        # <data_dir>/xnews.sqlite3, created and migrated
    store.save_profile(p); store.search("bóng đá"); store.ordered_keys(ArticleFilter(...))
    store.close()

WAL journal: readers run on any thread at the same time as the one writer; every
write takes ``store.write_lock`` (one writer per process), so a write waits for the
crawl's batch instead of failing with "database is locked". Each store has its own peewee
models bound to its own database (``store.models.Article``...): two stores open in one process
never write into each other's file.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

from peewee import SqliteDatabase

from ..paths import database_path, image_cache_dir, raw_pages_dir
from .db import StoreError, connect
from .duplicates import Duplicates
from .models import bind_models
from .queries import Queries
from .repo import Records
from .revisions import Revisions
from .schedules import Schedules
from .versions import Versions
from .watches import Watches

__all__ = ["Store", "StoreError"]


class Store(Versions, Records, Queries, Duplicates, Schedules, Watches, Revisions):
    def __init__(self, db: SqliteDatabase, root: Path, write_lock: threading.RLock):
        self.db = db
        self.models = bind_models(db)  # this store's model classes
        self.root = Path(root)  # the data folder (images, raw pages and crawl state lie beside the database)
        self.write_lock = write_lock

    @classmethod
    def open(cls, root: str | Path, *, path: str | Path | None = None) -> "Store":
        """Open the database of the data folder ``root`` (or the file ``path``); StoreError when it can't."""
        root = Path(root)
        lock = threading.RLock()
        db = connect(path if path is not None else database_path(root), lock)
        return cls(db, root, lock)

    @property
    def path(self) -> Path:
        return Path(self.db.database)

    @property
    def images_root(self) -> Path:
        return image_cache_dir(self.root)

    @property
    def raw_root(self) -> Path:
        return raw_pages_dir(self.root)

    @contextmanager
    def writing(self):
        """One transaction under the write lock: ``with store.writing(): ...``.

        IMMEDIATE: SQLite's write lock is taken at the start, so a transaction that reads before
        it writes waits for another process's writer (busy_timeout) instead of failing with
        'database is locked' when it tries to upgrade."""
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            yield self.db

    def close(self) -> None:
        """Close this thread's connection (peewee keeps one per thread)."""
        if not self.db.is_closed():
            self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
