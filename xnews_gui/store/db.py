"""Open the SQLite database (for ``Store``): WAL, foreign keys, schema version and forward migrations.

The schema version lives in ``PRAGMA user_version``. Each migration runs in one
transaction, so a crash leaves the database at the previous version, intact.
"""

from __future__ import annotations

from pathlib import Path

from peewee import SqliteDatabase

from .collation import topic_key, vi_key
from .models import ALL_MODELS, Watch, WatchHit


class StoreError(RuntimeError):
    """The database cannot be opened or is from a newer XNews."""


def _v1(db: SqliteDatabase) -> None:
    with db.bind_ctx(ALL_MODELS):  # the models' own column order (the unbound classes, bound for this call)
        db.create_tables(ALL_MODELS)
    db.execute_sql(
        "CREATE VIRTUAL TABLE IF NOT EXISTS article_fts USING fts5("
        "title, summary, body_text, content='article', content_rowid='id', "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    db.execute_sql(
        "CREATE TRIGGER IF NOT EXISTS article_ai AFTER INSERT ON article BEGIN "
        "INSERT INTO article_fts(rowid, title, summary, body_text) "
        "VALUES (new.id, new.title, new.summary, new.body_text); END"
    )
    db.execute_sql(
        "CREATE TRIGGER IF NOT EXISTS article_ad AFTER DELETE ON article BEGIN "
        "INSERT INTO article_fts(article_fts, rowid, title, summary, body_text) "
        "VALUES ('delete', old.id, old.title, old.summary, old.body_text); END"
    )
    db.execute_sql(
        "CREATE TRIGGER IF NOT EXISTS article_au AFTER UPDATE OF title, summary, body_text ON article BEGIN "
        "INSERT INTO article_fts(article_fts, rowid, title, summary, body_text) "
        "VALUES ('delete', old.id, old.title, old.summary, old.body_text); "
        "INSERT INTO article_fts(rowid, title, summary, body_text) "
        "VALUES (new.id, new.title, new.summary, new.body_text); END"
    )


def _fold(column: str) -> str:
    """SQL folding đ/Đ to d/D: unicode61's remove_diacritics leaves them, Vietnamese users type 'd'."""
    return f"replace(replace({column}, 'đ', 'd'), 'Đ', 'D')"


def _v2(db: SqliteDatabase) -> None:
    """Search folds đ to d, so 'bong da' finds 'Bóng đá'."""
    for name in ("article_ai", "article_ad", "article_au"):
        db.execute_sql(f"DROP TRIGGER IF EXISTS {name}")
    db.execute_sql("DROP TABLE IF EXISTS article_fts")
    db.execute_sql(
        "CREATE VIRTUAL TABLE article_fts USING fts5("
        "title, summary, body_text, content='article', content_rowid='id', "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    new = ", ".join(_fold(f"new.{c}") for c in ("title", "summary", "body_text"))
    old = ", ".join(_fold(f"old.{c}") for c in ("title", "summary", "body_text"))
    db.execute_sql(
        "CREATE TRIGGER article_ai AFTER INSERT ON article BEGIN "
        f"INSERT INTO article_fts(rowid, title, summary, body_text) VALUES (new.id, {new}); END"
    )
    db.execute_sql(
        "CREATE TRIGGER article_ad AFTER DELETE ON article BEGIN "
        f"INSERT INTO article_fts(article_fts, rowid, title, summary, body_text) VALUES ('delete', old.id, {old}); END"
    )
    db.execute_sql(
        "CREATE TRIGGER article_au AFTER UPDATE OF title, summary, body_text ON article BEGIN "
        f"INSERT INTO article_fts(article_fts, rowid, title, summary, body_text) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO article_fts(rowid, title, summary, body_text) VALUES (new.id, {new}); END"
    )
    folded = ", ".join(_fold(c) for c in ("title", "summary", "body_text"))
    db.execute_sql(f"INSERT INTO article_fts(rowid, title, summary, body_text) SELECT id, {folded} FROM article")


def _v3(db: SqliteDatabase) -> None:
    """Runs remember their process, so a run whose process was killed can be told from a live one."""
    columns = {row[1] for row in db.execute_sql("PRAGMA table_info(crawl_run)").fetchall()}
    if "pid" not in columns:  # a database made by _v1 from today's models has it already
        db.execute_sql("ALTER TABLE crawl_run ADD COLUMN pid INTEGER")


def _v4(db: SqliteDatabase) -> None:
    """Near-duplicates: each article's MinHash signature, its shingle count and its story group
    (the id of the group's first article; NULL = not grouped yet). See store/duplicates.py."""
    columns = {row[1] for row in db.execute_sql("PRAGMA table_info(article)").fetchall()}
    for name, kind in (("dup_sig", "BLOB"), ("dup_size", "INTEGER"), ("dup_group", "INTEGER")):
        if name not in columns:
            db.execute_sql(f"ALTER TABLE article ADD COLUMN {name} {kind}")
    db.execute_sql("CREATE INDEX IF NOT EXISTS article_dup_group ON article (dup_group)")


def _v5(db: SqliteDatabase) -> None:
    """Profiles keep their versions (store/versions.py); each stored profile starts with its current state."""
    db.execute_sql(
        "CREATE TABLE IF NOT EXISTS profile_version (id INTEGER NOT NULL PRIMARY KEY, profile VARCHAR(255) NOT NULL, "
        "number INTEGER NOT NULL, at DATETIME NOT NULL, reason TEXT NOT NULL, json TEXT NOT NULL)"
    )
    db.execute_sql("CREATE UNIQUE INDEX IF NOT EXISTS profile_version_profile_number ON profile_version (profile, number)")
    db.execute_sql(
        "INSERT INTO profile_version (profile, number, at, reason, json) "
        "SELECT name, 1, updated, 'as it was before versions were kept', json FROM profile_record "
        "WHERE name NOT IN (SELECT profile FROM profile_version)"
    )


def _v6(db: SqliteDatabase) -> None:
    """Profiles keep their re-crawl schedule and an interrupted crawl to resume (store/schedules.py)."""
    db.execute_sql(
        "CREATE TABLE IF NOT EXISTS profile_schedule (id INTEGER NOT NULL PRIMARY KEY, profile VARCHAR(255) NOT NULL, "
        "minutes INTEGER NOT NULL, next_run DATETIME, interrupted DATETIME)"
    )
    db.execute_sql("CREATE UNIQUE INDEX IF NOT EXISTS profile_schedule_profile ON profile_schedule (profile)")


def _v7(db: SqliteDatabase) -> None:
    """Watches: saved searches, and the new articles that matched them (store/watches.py)."""
    with db.bind_ctx([Watch, WatchHit]):
        db.create_tables([Watch, WatchHit], safe=True)


def _v8(db: SqliteDatabase) -> None:
    """The store follows its sites (store/revisions.py): an article's copy at its source (updated_at,
    gone_at, its validators and source date) and the earlier versions of changed articles."""
    columns = {row[1] for row in db.execute_sql("PRAGMA table_info(article)").fetchall()}
    for name, kind in (("updated_at", "DATETIME"), ("gone_at", "DATETIME"), ("etag", "TEXT NOT NULL DEFAULT ''"),
                       ("last_modified", "TEXT NOT NULL DEFAULT ''"), ("modified_at", "TEXT NOT NULL DEFAULT ''")):
        if name not in columns:  # a database made by _v1 from today's models has them already
            db.execute_sql(f"ALTER TABLE article ADD COLUMN {name} {kind}")
    db.execute_sql("CREATE INDEX IF NOT EXISTS article_gone_at ON article (gone_at)")
    db.execute_sql(
        "CREATE TABLE IF NOT EXISTS article_version (id INTEGER NOT NULL PRIMARY KEY, article_id INTEGER NOT NULL, "
        "number INTEGER NOT NULL, at DATETIME NOT NULL, reason TEXT NOT NULL, title TEXT NOT NULL, "
        "summary TEXT NOT NULL, image_url TEXT NOT NULL, body_html TEXT NOT NULL, body_text TEXT NOT NULL, "
        "author TEXT NOT NULL, published VARCHAR(255) NOT NULL, category VARCHAR(255), confidence REAL, "
        "fetched_at DATETIME)")
    db.execute_sql("CREATE INDEX IF NOT EXISTS article_version_article_id ON article_version (article_id)")
    db.execute_sql("CREATE UNIQUE INDEX IF NOT EXISTS article_version_article_id_number "
                   "ON article_version (article_id, number)")


MIGRATIONS = [_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8]  # MIGRATIONS[i] takes the schema from version i to i + 1
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: str | Path, write_lock) -> SqliteDatabase:
    """Open (creating if needed) and migrate the database at ``path`` (the caller binds its models to it)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the data folder {path.parent}: {exc.strerror or exc}") from None
    db = SqliteDatabase(
        str(path),
        pragmas={"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal",
                 "busy_timeout": 10000, "cache_size": -16000},
        check_same_thread=False,
    )
    for fn in (vi_key, topic_key):  # Vietnamese order for sorting (on every connection)
        db.register_function(fn, fn.__name__, 1, deterministic=True)
    try:
        db.connect(reuse_if_open=True)
        version = db.execute_sql("PRAGMA user_version").fetchone()[0]
    except Exception as exc:  # sqlite3.OperationalError / DatabaseError, wrapped by peewee
        raise StoreError(f"cannot open the database {path}: {exc}") from None
    if version > SCHEMA_VERSION:
        db.close()
        raise StoreError(
            f"the database {path} was made by a newer XNews (schema {version}, this one knows {SCHEMA_VERSION}); "
            "update XNews or choose another data folder"
        )
    with write_lock:
        for target in range(version, SCHEMA_VERSION):
            # IMMEDIATE, then look again: another process opening the same folder may have migrated
            with db.atomic("IMMEDIATE"):
                if db.execute_sql("PRAGMA user_version").fetchone()[0] != target:
                    continue
                MIGRATIONS[target](db)
                db.execute_sql(f"PRAGMA user_version = {target + 1}")
    return db
