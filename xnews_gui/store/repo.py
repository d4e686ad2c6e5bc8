"""What the rest of XNews asks of the store: profiles, articles, search, runs (``Store``'s write side).

Every write goes through ``self.write_lock`` in one transaction (one writer); reads
run anywhere.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from typing import Iterable

from peewee import SqliteDatabase, fn

from ..core.extraction.extract import Article as ExtractedArticle
from ..core.profile.profile import Profile
from ..core.disk.raw_tidy import tidy_packs
from ..core.text.urls import UrlError, canonical
from .models import Article, CrawlRun, ImageCache, utcnow

SKIPPED = "skipped"  # Page.kind of an article page not stored because the user skips its topic
INTERRUPTED = "interrupted"  # CrawlRun.status of a run whose process died without finishing it


_TERM = re.compile(r'(-)?(?:(title|summary|text):)?(?:"([^"]*)"?|([^\s"]+))', re.I)
_COLUMNS = {"title": "title", "summary": "summary", "text": "body_text"}
_BARE_COLUMNS = {f"{c}:" for c in _COLUMNS}


def search_terms(text: str) -> tuple[str, str]:
    """A user's search -> (what every article found must hold, what none may hold) as safe FTS5 queries
    ("" when there is none): words (all of them; the last one also as a prefix, as it is typed),
    "a phrase", -word or -"a phrase" (without it), title:word, summary:word, text:word (in that part)."""
    text = text.replace("đ", "d").replace("Đ", "D")  # the index folds them too (store.db._v2)
    include, exclude = [], []
    end = len(text.rstrip())
    for match in _TERM.finditer(text):
        negative, column, phrase, token = match.groups(default="")
        words = re.findall(r"\w+", phrase or token, flags=re.UNICODE)
        if not words or (not column and token.lower() in _BARE_COLUMNS):  # "title:" with no word yet
            continue
        where = f"{_COLUMNS[column.lower()]} : " if column else ""
        if negative or phrase:
            (exclude if negative else include).append(f'{where}"{" ".join(words)}"')
        else:  # a plain word (or a hyphenated one): each of its words
            include += [f'{where}"{w}"' for w in words]
            if match.end() == end:
                include[-1] += "*"  # the last word: still being typed
    return " AND ".join(include), " OR ".join(exclude)


def article_dict(a: Article) -> dict:
    """The one article shape handed to the reader and the exporters."""
    return {
        "id": a.id, "profile": a.profile, "url": a.url, "title": a.title, "summary": a.summary,
        "image": a.image_url, "author": a.author, "date": a.published,
        "fetched_at": a.fetched_at.isoformat() if hasattr(a.fetched_at, "isoformat") else str(a.fetched_at),
        "category": a.category, "confidence": a.confidence, "body_text": a.body_text,
        "body_html": a.body_html, "read": a.read, "starred": a.starred,
        "updated_at": _iso(a.updated_at), "gone_at": _iso(a.gone_at),  # a changed version stored / gone at the source
    }


def _iso(value) -> str | None:
    """A stored time (UTC) as ISO 8601 with its zone, or None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).isoformat(timespec="seconds")


def _process_started_at(pid: int) -> float | None:
    """When a process started (epoch seconds), where the system tells (Linux /proc); else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as fh:
            boot = next(float(line.split()[1]) for line in fh if line.startswith(b"btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat: start time in ticks
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _run_process_alive(pid: int | None, started) -> bool:
    """Whether the process that began a run still runs: its pid is alive and, where the system
    says when that process started, it started before the run did (else the pid was reused)."""
    if pid is None:
        return False
    if pid != os.getpid():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # it exists, owned by someone else
            pass
    born = _process_started_at(pid)
    if born is None or not isinstance(started, datetime):
        return True
    return born <= started.replace(tzinfo=timezone.utc).timestamp() + 2.0  # clock ticks are coarse


class Records:
    """Profiles (read side; saves are in versions.py), articles, categories, pages, runs and the image
    index. Mixed into ``Store``."""

    db: SqliteDatabase

    # --- profiles ---------------------------------------------------------------
    def load_profile(self, name: str) -> Profile | None:
        m = self.models
        rec = m.ProfileRecord.get_or_none(m.ProfileRecord.name == name)
        return Profile.from_json(rec.json) if rec else None

    def profile_names(self) -> list[str]:
        m = self.models
        return [r.name for r in m.ProfileRecord.select(m.ProfileRecord.name).order_by(m.ProfileRecord.name)]

    # --- articles ---------------------------------------------------------------
    def store_article(self, article: ExtractedArticle, profile: str, category: str | None = None,
                      confidence: float | None = None, section_label: str | None = None,
                      run_id: int | None = None) -> tuple[int, bool]:
        """Insert an article unless its canonical URL or content is already stored.

        Returns (id, created). The same text under a second URL counts as known.
        """
        url = canonical(article.url)
        content_hash = article.content_hash
        db = self.db
        # raw SQL: this runs once per crawled article and peewee's model layer tripled its cost
        with self.write_lock, db.atomic("IMMEDIATE"):
            if article.body_text:
                row = db.execute_sql(
                    "SELECT id FROM article WHERE content_hash = ? AND profile = ? LIMIT 1", (content_hash, profile)
                ).fetchone()
                if row is not None:
                    return row[0], False
            cursor = db.execute_sql(
                "INSERT INTO article (profile, url, title, summary, image_url, body_html, body_text, author, "
                "published, fetched_at, content_hash, category, confidence, section_label, run_id, read, starred) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0) ON CONFLICT(url) DO NOTHING",
                (profile, url, article.title, article.summary, article.image, article.body_html, article.body_text,
                 article.author, article.date, str(utcnow()), content_hash, category, confidence, section_label,
                 run_id),
            )
            if cursor.rowcount == 1:
                return cursor.lastrowid, True
            return db.execute_sql("SELECT id FROM article WHERE url = ?", (url,)).fetchone()[0], False

    def known_urls(self, urls: Iterable[str]) -> set[str]:
        """The URLs (canonical) already stored as articles or skipped for their topic."""
        urls = list(urls)
        found: set[str] = set()
        execute = self.db.execute_sql
        # plain SQL: asked once per list page by the crawl's parse thread, where peewee's query
        # building cost ten times the look-up; chunks stay under SQLite's 999 variables
        for i in range(0, len(urls), 450):
            chunk = urls[i : i + 450]
            marks = ",".join("?" * len(chunk))
            found.update(row[0] for row in execute(
                f"SELECT url FROM article WHERE url IN ({marks}) "
                f"UNION ALL SELECT url FROM page WHERE url IN ({marks}) AND kind = ?", (*chunk, *chunk, SKIPPED)))
        return found

    def is_known(self, url: str) -> bool:
        m = self.models
        try:
            url = canonical(url)
        except UrlError:
            return False
        return (m.Article.select().where(m.Article.url == url).exists()
                or m.Page.select().where((m.Page.url == url) & (m.Page.kind == SKIPPED)).exists())

    def mark_skipped(self, url: str, reason: str) -> None:
        """Remember an article page left out for its topic, so an incremental crawl does not fetch it again."""
        self.record_page(canonical(url), 200, kind=SKIPPED, error=reason)

    def get_article(self, article_id: int) -> Article | None:
        m = self.models
        return m.Article.get_or_none(m.Article.id == article_id)

    def article_id_for_url(self, url: str) -> int | None:
        """The id of the article stored for this page (any spelling of its URL), or None."""
        m = self.models
        try:
            url = canonical(url)
        except UrlError:
            return None
        row = m.Article.select(m.Article.id).where(m.Article.url == url).first()
        return row.id if row else None

    def list_articles(self, profile: str | None = None, limit: int = 50, offset: int = 0,
                      category: str | None = None) -> list[Article]:
        m = self.models
        q = m.Article.select().order_by(m.Article.id.desc())
        if profile:
            q = q.where(m.Article.profile == profile)
        if category:
            q = q.where(m.Article.category == category)
        return list(q.limit(limit).offset(offset))

    def count_articles(self, profile: str | None = None) -> int:
        m = self.models
        q = m.Article.select()
        if profile:
            q = q.where(m.Article.profile == profile)
        return q.count()

    def search_ids(self, text: str, limit: int = 100000) -> list[int]:
        include, exclude = search_terms(text)
        without = " AND rowid NOT IN (SELECT rowid FROM article_fts WHERE article_fts MATCH ?)" if exclude else ""
        if include:
            cursor = self.db.execute_sql(
                f"SELECT rowid FROM article_fts WHERE article_fts MATCH ?{without} ORDER BY rank LIMIT ?",
                (include, *([exclude] if exclude else []), limit))
        elif exclude:  # only words to leave out: every other article, newest first
            cursor = self.db.execute_sql(
                "SELECT id FROM article WHERE id NOT IN (SELECT rowid FROM article_fts WHERE article_fts MATCH ?) "
                "ORDER BY id DESC LIMIT ?", (exclude, limit))
        else:
            return []
        return [row[0] for row in cursor.fetchall()]

    def search(self, text: str, limit: int = 50) -> list[Article]:
        m = self.models
        ids = self.search_ids(text, limit)
        if not ids:
            return []
        by_id = {a.id: a for a in m.Article.select().where(m.Article.id.in_(ids))}
        return [by_id[i] for i in ids if i in by_id]

    def set_category(self, article_id: int, label: str | None, confidence: float | None = None) -> bool:
        """The model's topic for an article; False (nothing written) when the user corrected its topic: a
        correction is never replaced by a model's guess."""
        m = self.models
        with self.write_lock:
            return bool(m.Article.update(category=label, confidence=confidence).where(
                (m.Article.id == article_id) & m.Article.user_label.is_null()).execute())

    def set_user_label(self, article_id: int, label: str | None) -> None:
        """A correction made by the user; used by the next training run."""
        m = self.models
        with self.write_lock:
            m.Article.update(user_label=label, category=label if label else m.Article.category,
                             confidence=1.0 if label else m.Article.confidence
                             ).where(m.Article.id == article_id).execute()

    def set_flags(self, article_id: int, read: bool | None = None, starred: bool | None = None) -> None:
        m = self.models
        changes = {}
        if read is not None:
            changes["read"] = read
        if starred is not None:
            changes["starred"] = starred
        if changes:
            with self.write_lock:
                m.Article.update(**changes).where(m.Article.id == article_id).execute()

    # --- categories ---------------------------------------------------------------
    def hidden_categories(self) -> set[str]:
        m = self.models
        return {c.name for c in m.Category.select().where(m.Category.hidden == True)}  # noqa: E712

    def set_category_hidden(self, name: str, hidden: bool) -> None:
        m = self.models
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            cat, _ = m.Category.get_or_create(name=name)
            cat.hidden = hidden
            cat.save()

    def label_counts(self) -> list[tuple[str, int]]:
        """(category, number of articles) for every category in use."""
        m = self.models
        query = (m.Article.select(m.Article.category, fn.COUNT(m.Article.id).alias("n"))
                 .where(m.Article.category.is_null(False)).group_by(m.Article.category))
        return [(row.category, row.n) for row in query]

    # --- pages, failures and runs ---------------------------------------------------
    def record_page(self, url: str, status: int, encoding: str = "", content_type: str = "",
                    raw_path: str = "", kind: str = "", error: str = "") -> None:
        m = self.models
        with self.write_lock:
            m.Page.insert(url=url, status=status, encoding=encoding, content_type=content_type,
                        raw_path=raw_path, kind=kind, error=error, fetched_at=utcnow()).on_conflict(
                conflict_target=[m.Page.url],
                update={m.Page.status: status, m.Page.encoding: encoding, m.Page.content_type: content_type,
                        m.Page.raw_path: raw_path, m.Page.kind: kind, m.Page.error: error, m.Page.fetched_at: utcnow()},
            ).execute()

    def tidy_raw_pages(self) -> int:
        """Drop the raw pages no page row points to any more (pages crawled again); bytes freed.
        The packs' live pages are copied first, the rows pointed at the copies, then the old packs go."""
        rows: dict[str, str] = {}

        def references():
            rows.update(self.db.execute_sql("SELECT raw_path, url FROM page WHERE raw_path LIKE 'packs/%'").fetchall())
            return rows
        tidy = tidy_packs(self.raw_root, references)
        try:
            if tidy.moved:
                with self.writing():
                    self.db.cursor().executemany("UPDATE page SET raw_path = ? WHERE url = ? AND raw_path = ?",
                                                 [(new, rows[old], old) for old, new in tidy.moved.items()])
        except BaseException:
            tidy.cancel()
            raise
        tidy.finish()
        return tidy.freed_bytes

    def record_failure(self, profile: str, url: str, reason: str) -> None:
        m = self.models
        with self.write_lock:
            m.FailedExtraction.create(profile=profile, url=url, reason=reason)

    def start_run(self, profile: str) -> int:
        m = self.models
        with self.write_lock:
            return m.CrawlRun.create(profile=profile, pid=os.getpid()).id

    def finish_run(self, run_id: int, status: str, stats: dict) -> None:
        m = self.models
        with self.write_lock:
            m.CrawlRun.update(
                finished=utcnow(), status=status, pages=int(stats.get("pages", 0)),
                articles=int(stats.get("articles", 0)), errors=int(stats.get("errors", 0)),
                stats_json=json.dumps(stats, ensure_ascii=False, default=str),
            ).where(m.CrawlRun.id == run_id).execute()

    def mark_interrupted_runs(self) -> int:
        """Runs still 'running' whose process is gone (killed, crashed) become 'interrupted'; how many."""
        m = self.models
        with self.write_lock:
            stale = [r.id for r in m.CrawlRun.select(m.CrawlRun.id, m.CrawlRun.pid, m.CrawlRun.started)
                     .where(m.CrawlRun.status == "running") if not _run_process_alive(r.pid, r.started)]
            if stale:
                m.CrawlRun.update(status=INTERRUPTED, finished=utcnow()).where(m.CrawlRun.id.in_(stale)).execute()
        return len(stale)

    def recent_runs(self, limit: int = 20, profile: str | None = None) -> list[CrawlRun]:
        m = self.models
        q = m.CrawlRun.select().order_by(m.CrawlRun.id.desc())
        if profile:
            q = q.where(m.CrawlRun.profile == profile)
        return list(q.limit(limit))

    def last_runs(self) -> dict[str, CrawlRun]:
        """Each profile's latest run that has ended (its summary is in ``stats_json``)."""
        m = self.models
        ended = (m.CrawlRun.select(fn.MAX(m.CrawlRun.id)).where(m.CrawlRun.status != "running")
                 .group_by(m.CrawlRun.profile))
        return {r.profile: r for r in m.CrawlRun.select().where(m.CrawlRun.id.in_(ended))}

    # --- image cache index ----------------------------------------------------------
    def record_image(self, url: str, sha256: str = "", content_type: str = "", size: int = 0,
                     error: str = "") -> None:
        """Remember where an image's bytes lie (content-addressed by SHA-256) or why it failed."""
        m = self.models
        with self.write_lock:
            m.ImageCache.insert(url=url, sha256=sha256, content_type=content_type, size=size, error=error).on_conflict(
                conflict_target=[m.ImageCache.url],
                update={m.ImageCache.sha256: sha256, m.ImageCache.content_type: content_type,
                        m.ImageCache.size: size, m.ImageCache.error: error},
            ).execute()

    def image_record(self, url: str) -> ImageCache | None:
        """The ImageCache row for an image URL, or None when it was never fetched."""
        m = self.models
        return m.ImageCache.get_or_none(m.ImageCache.url == url)

    def image_records(self, urls: Iterable[str]) -> list[ImageCache]:
        """The cached (fetched, not failed) ImageCache rows among these URLs."""
        m = self.models
        urls = list(dict.fromkeys(urls))
        out: list[m.ImageCache] = []
        for start in range(0, len(urls), 500):
            chunk = urls[start : start + 500]
            out.extend(r for r in m.ImageCache.select().where(m.ImageCache.url.in_(chunk)) if r.sha256 and not r.error)
        return out

    def image_cache_bytes(self) -> int:
        m = self.models
        return int(m.ImageCache.select(fn.COALESCE(fn.SUM(m.ImageCache.size), 0)).scalar() or 0)
