"""The persisted crawl state of one profile: frontier, seen set, passes, revisit data.

One SQLite file per profile (``<data>/crawl/<profile>.sqlite3``), separate from
the article store. Writes are grouped into transactions committed by
``commit()`` (the engine calls it twice a second and at the end); after a
crash, work done since the last commit is simply done again, and the store's
uniqueness by canonical URL makes re-storing an article a no-op.

A *pass* is one crawl over the site. An interrupted pass (stopped, at a limit,
killed) is resumed by the next start; a finished pass makes the next start a
new pass, in which list pages are read again but article URLs done in any
earlier pass stay known.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .request import Request
from .revisit import article_interval, next_interval

QUEUED, DONE, FAILED = 0, 1, 2
NEW, DUPLICATE, KNOWN = "new", "duplicate", "known"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS url (
    url TEXT PRIMARY KEY, kind TEXT NOT NULL, depth INTEGER NOT NULL, parent TEXT, anchor TEXT,
    score REAL, state INTEGER NOT NULL, pass INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS url_queue ON url (pass, state);
CREATE TABLE IF NOT EXISTS list_page (
    url TEXT PRIMARY KEY, fingerprint TEXT, revisits INTEGER, changes INTEGER,
    first_visit REAL, last_visit REAL, interval REAL, next_visit REAL);
CREATE TABLE IF NOT EXISTS article_watch (
    url TEXT PRIMARY KEY, first_seen REAL NOT NULL, last_check REAL, checks INTEGER NOT NULL DEFAULT 0,
    changes INTEGER NOT NULL DEFAULT 0, interval REAL NOT NULL, next_check REAL NOT NULL,
    misses INTEGER NOT NULL DEFAULT 0, last_miss REAL);
CREATE INDEX IF NOT EXISTS article_watch_next ON article_watch (next_check);
"""
NEVER = 1e18  # next_check of an article no longer revisited on schedule (gone at its source)


class CrawlBusy(BlockingIOError):
    """Another crawl of the same profile holds this crawl state."""


def _lock_exclusively(path: Path):
    """An open file holding an exclusive lock, so two crawls never share one frontier."""
    handle = open(path, "a+b")
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory lock; the store still refuses duplicate articles
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise CrawlBusy(f"a crawl of {path.stem!r} is already running with this data folder "
                        "(another XNews window or command); wait for it to end or stop it first") from None
    return handle


def _request(url, kind, depth, referrer, anchor, priority, extra, seq: int = 0) -> Request:
    """A request from its row: the columns, and the rest from ``extra`` (written by this class)."""
    data = {"url": url, "kind": kind, "depth": depth, "referrer": referrer or "", "anchor": anchor or "",
            "priority": priority or 0.0}
    if extra:
        data.update(json.loads(extra))
    req = Request.from_dict(data)
    req.seq = seq
    return req


class CrawlState:
    def __init__(self, path: Path, commit_every: int = 500):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lockfile = _lock_exclusively(path.with_suffix(".lock"))
        self.path = path
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(url)")}
        if "qkey" not in columns:  # the frontier's order on disk (crawl states made before it: 0)
            self._db.execute("ALTER TABLE url ADD COLUMN qkey REAL NOT NULL DEFAULT 0")
            self._db.execute("ALTER TABLE url ADD COLUMN seq INTEGER NOT NULL DEFAULT 0")
        if "extra" not in columns:  # the rest of the request (flags, tries, not-before...) as JSON; NULL: none
            self._db.execute("ALTER TABLE url ADD COLUMN extra TEXT")
        self._db.execute("CREATE INDEX IF NOT EXISTS url_order ON url (pass, state, qkey, seq)")
        self._lock = threading.RLock()
        self._pending = 0
        self._commit_every = commit_every
        self.pass_no = int(self._meta("pass", "0"))

    # --- passes -------------------------------------------------------------
    def begin(self, load: bool = True) -> list[Request]:
        """Open a pass; returns the queued requests of an interrupted pass (resume) or []
        (with ``load=False`` they stay on disk, for a disk queue; ``resumed`` tells)."""
        with self._lock:
            if self._meta("pass_open", "0") == "1" and self.pass_no:
                self.resumed = True
                if not load:
                    return []
                rows = self._db.execute(
                    "SELECT url, kind, depth, parent, anchor, score, extra FROM url WHERE pass = ? AND state = ? "
                    "ORDER BY rowid", (self.pass_no, QUEUED)).fetchall()
                return [_request(*row) for row in rows]
            self.resumed = False
            self.pass_no += 1
            self._tx()
            self._set_meta("pass", str(self.pass_no))
            self._set_meta("pass_open", "1")
            self.commit()
            return []

    def finish_pass(self) -> None:
        with self._lock:
            self._tx()
            self._set_meta("pass_open", "0")
            self.commit()

    # --- frontier -----------------------------------------------------------
    def claim(self, req: Request, key: float = 0.0) -> str:
        """Record a discovered URL: NEW (queue it), DUPLICATE (seen in this pass)
        or KNOWN (an article done in an earlier pass). ``key`` and ``req.seq`` order the
        queue on disk (``queued``)."""
        with self._lock:
            self._tx()
            extras = req.extras()
            extra = json.dumps(extras, ensure_ascii=False) if extras else None
            cur = self._db.execute(
                "INSERT OR IGNORE INTO url (url, kind, depth, parent, anchor, score, state, pass, qkey, seq, extra) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (req.url, req.kind, req.depth, req.referrer, req.anchor, req.priority, QUEUED, self.pass_no,
                 key, req.seq, extra))
            if cur.rowcount:
                return NEW
            # seen before: list pages are read again in each pass; failed articles retried; a revisit takes
            # a known article again, one of this pass too (a resumed pass, "Fetch again") unless it is queued
            revisit, now = "revisit" in req.flags, "now" in req.flags  # now: "Fetch again", queued or not
            cur = self._db.execute(
                "UPDATE url SET state = ?, pass = ?, depth = ?, parent = ?, anchor = ?, score = ?, kind = ?, "
                "qkey = ?, seq = ?, extra = ? WHERE url = ? "
                "AND ((pass < ? AND (kind = 'list' OR state = ? OR ? = 'list' OR ?)) OR (? AND state != ?) OR ?)",
                (QUEUED, self.pass_no, req.depth, req.referrer, req.anchor, req.priority, req.kind, key, req.seq,
                 extra, req.url, self.pass_no, FAILED, req.kind, revisit, revisit, QUEUED, now))
            if cur.rowcount:
                return NEW
            row = self._db.execute("SELECT pass FROM url WHERE url = ?", (req.url,)).fetchone()
            return KNOWN if row and row[0] < self.pass_no else DUPLICATE

    def done(self, url: str, ok: bool = True) -> None:
        with self._lock:
            self._tx()
            self._db.execute("UPDATE url SET state = ? WHERE url = ?", (DONE if ok else FAILED, url))
            self._bump()

    # --- the frontier on disk (frontier.DiskQueue) ------------------------------------
    def queued(self, limit: int) -> list[tuple[float, int, Request]]:
        """The first ``limit`` queued requests of this pass in queue order: (key, seq, request)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT url, kind, depth, parent, anchor, score, extra, qkey, seq FROM url "
                "WHERE pass = ? AND state = ? ORDER BY qkey, seq, rowid LIMIT ?",
                (self.pass_no, QUEUED, limit)).fetchall()
        return [(row[7], row[8], _request(*row[:7], seq=row[8])) for row in rows]

    def queued_count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM url WHERE pass = ? AND state = ?",
                                    (self.pass_no, QUEUED)).fetchone()[0]

    def queued_among(self, urls) -> int:
        """How many of these URLs are still queued in this pass."""
        urls = list(urls)
        count = 0
        with self._lock:
            for i in range(0, len(urls), 500):
                part = urls[i:i + 500]
                count += self._db.execute(
                    f"SELECT COUNT(*) FROM url WHERE pass = ? AND state = ? AND url IN ({','.join('?' * len(part))})",
                    (self.pass_no, QUEUED, *part)).fetchone()[0]
        return count

    def max_seq(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM url").fetchone()[0]

    def counts(self) -> dict:
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM url WHERE pass = ? GROUP BY state",
                                    (self.pass_no,)).fetchall()
        names = {QUEUED: "queued", DONE: "done", FAILED: "failed"}
        return {names[s]: n for s, n in rows}

    # --- revisit data (periodic crawling) ---------------------------------------
    def list_visit(self, url: str, fingerprint: str, min_s: float, max_s: float, now: float | None = None) -> bool:
        """Record a visit of a list page; returns True if it changed since the last visit."""
        now = time.time() if now is None else now
        with self._lock:
            self._tx()
            row = self._db.execute(
                "SELECT fingerprint, revisits, changes, first_visit, interval FROM list_page WHERE url = ?",
                (url,)).fetchone()
            if row is None:
                self._db.execute("INSERT INTO list_page VALUES (?, ?, 0, 0, ?, ?, ?, ?)",
                                 (url, fingerprint, now, now, min_s, now + min_s))
                self._bump()
                return False
            old, revisits, changes, first, interval = row
            changed = old != fingerprint
            revisits, changes = revisits + 1, changes + int(changed)
            interval = next_interval(revisits, changes, now - first, interval or min_s, min_s, max_s)
            self._db.execute(
                "UPDATE list_page SET fingerprint = ?, revisits = ?, changes = ?, last_visit = ?, interval = ?, "
                "next_visit = ? WHERE url = ?", (fingerprint, revisits, changes, now, interval, now + interval, url))
            self._bump()
            return changed

    def due(self, url: str, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self._lock:
            row = self._db.execute("SELECT next_visit FROM list_page WHERE url = ?", (url,)).fetchone()
        return row is None or row[0] is None or row[0] <= now

    def next_visit(self) -> float | None:
        """The earliest time a list page is due again."""
        with self._lock:
            row = self._db.execute("SELECT MIN(next_visit) FROM list_page").fetchone()
        return row[0] if row else None

    def revisit_info(self, url: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT revisits, changes, interval, next_visit FROM list_page WHERE url = ?",
                                   (url,)).fetchone()
        return dict(zip(("revisits", "changes", "interval", "next_visit"), row)) if row else None

    # --- stored articles watched for changes (crawl/revisits.py) -------------------------
    def watch(self, url: str, first_s: float, now: float | None = None) -> None:
        """A newly stored article: first revisit after ``first_s`` seconds."""
        now = time.time() if now is None else now
        with self._lock:
            self._tx()
            self._db.execute("INSERT OR IGNORE INTO article_watch (url, first_seen, interval, next_check) "
                             "VALUES (?, ?, ?, ?)", (url, now, first_s, now + first_s))
            self._bump()

    def article_checked(self, url: str, changed: bool, min_s: float, max_s: float, now: float | None = None) -> float:
        """A revisit found the article changed or not (a 304, the same fields); its next interval."""
        now = time.time() if now is None else now
        with self._lock:
            self._tx()
            row = self._db.execute("SELECT first_seen, changes, interval FROM article_watch WHERE url = ?",
                                   (url,)).fetchone()
            first, changes, previous = row if row else (now, 0, min_s)
            changes += int(changed)
            interval = article_interval(changes, now - first, previous, min_s, max_s)
            self._db.execute(
                "INSERT INTO article_watch (url, first_seen, last_check, checks, changes, interval, next_check) "
                "VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET last_check = excluded.last_check, "
                "checks = checks + 1, changes = excluded.changes, interval = excluded.interval, "
                "next_check = excluded.next_check, misses = 0, last_miss = NULL",
                (url, first, now, changes, interval, now + interval))
            self._bump()
            return interval

    def article_missed(self, url: str, now: float | None = None) -> tuple[int, float | None]:
        """The source answered 404/410: (misses in a row now, when the one before was, or None)."""
        now = time.time() if now is None else now
        with self._lock:
            self._tx()
            row = self._db.execute("SELECT misses, last_miss FROM article_watch WHERE url = ?", (url,)).fetchone()
            misses, before = (row[0] + 1, row[1]) if row else (1, None)
            self._db.execute(
                "INSERT INTO article_watch (url, first_seen, interval, next_check, misses, last_miss) "
                "VALUES (?, ?, 0, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET misses = excluded.misses, "
                "last_miss = excluded.last_miss", (url, now, now, misses, now))
            self._bump()
            return misses, before

    def article_gone(self, url: str, next_check: float = NEVER) -> None:
        """Marked gone: asked again at ``next_check`` (NEVER: only when ``--revisit`` asks)."""
        with self._lock:
            self._tx()
            self._db.execute("UPDATE article_watch SET next_check = ? WHERE url = ?", (next_check, url))
            self._bump()

    def due_articles(self, limit: int, watched_since: float, now: float | None = None) -> list[str]:
        """Watched articles whose revisit is due (first seen since ``watched_since``), most overdue first."""
        now = time.time() if now is None else now
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT url FROM article_watch WHERE next_check <= ? AND first_seen >= ? ORDER BY next_check LIMIT ?",
                (now, watched_since, limit)).fetchall()]

    def next_article_check(self, watched_since: float) -> float | None:
        """When the next scheduled article revisit is due (epoch seconds), None when none is."""
        with self._lock:
            row = self._db.execute("SELECT MIN(next_check) FROM article_watch WHERE first_seen >= ? AND next_check < ?",
                                   (watched_since, NEVER)).fetchone()
        return row[0] if row else None

    # --- meta ---------------------------------------------------------------
    def get(self, key: str, default: str = "") -> str:
        with self._lock:
            return self._meta(key, default)

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._tx()
            self._set_meta(key, value)
            self._bump()

    # --- transactions -----------------------------------------------------------
    @contextmanager
    def together(self):
        """Writes made in the block are committed together (a commit from another thread waits):
        a list page's links all or none, so a crawl killed and resumed never has half of them."""
        with self._lock:
            yield

    def commit(self) -> None:
        with self._lock:
            if self._db.in_transaction:
                self._db.execute("COMMIT")
            self._pending = 0

    def close(self) -> None:
        with self._lock:
            self.commit()
            self._db.close()
            self._lockfile.close()

    def _tx(self) -> None:
        if not self._db.in_transaction:
            self._db.execute("BEGIN")

    def _bump(self) -> None:
        self._pending += 1
        if self._pending >= self._commit_every:
            self.commit()

    def _meta(self, key: str, default: str) -> str:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


def revisit_outlook(path: Path, watched_since: float, now: float | None = None) -> dict | None:
    """When a profile's next article revisit is due, read without taking the crawl's lock (a crawl
    may be running): {"next_at": epoch seconds or None, "due": articles due now, "watched": watched
    articles}; None when the profile was never crawled."""
    now = time.time() if now is None else now
    path = Path(path)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
        try:
            row = db.execute(
                "SELECT MIN(next_check), SUM(next_check <= ?), COUNT(*) FROM article_watch "
                "WHERE first_seen >= ? AND next_check < ?", (now, watched_since, NEVER)).fetchone()
        finally:
            db.close()
    except sqlite3.Error:  # a crawl state from before article watching, or being made
        return None
    return {"next_at": row[0], "due": int(row[1] or 0), "watched": int(row[2] or 0)}
