"""Watches: saved searches that tell the user when a new article matches.

    store.add_watch("vàng", words="giá vàng", topic=None, site="vnexpress", webhook="")
    store.watches(); store.remove_watch("vàng")
    hits = store.match_watches(new_ids)        # inside the crawl's write transaction (StoreSink.write_batch)
    store.watch_articles("vàng")               # the watch's own list, newest first

A watch is words (the search's syntax: every word must occur, the last one as a prefix, with or without
diacritics), a topic, a site (a profile), or any of them together. Only articles stored for the first time
are matched, once per watch (a unique (watch, article) pair): an article seen before never fires again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peewee import SqliteDatabase

from ..core.text.topics import display_name, label_from_text
from ..core.text.urls import is_allowed_scheme
from .db import StoreError
from .models import utcnow
from .repo import article_dict, search_terms

MAX_WATCHES = 200
_NAME = re.compile(r"^\S(?:.{0,62}\S)?$")


class WatchError(ValueError):
    """A watch that cannot be saved: the message says why, in one line."""


@dataclass(frozen=True)
class WatchRow:
    id: int
    name: str
    words: str
    topic: str | None
    site: str | None
    webhook: str

    def describe(self) -> str:
        parts = [f'words "{self.words}"' if self.words else "", f"topic {display_name(self.topic)}" if self.topic else "",
                 f"site {self.site}" if self.site else ""]
        return ", ".join(p for p in parts if p)


@dataclass(frozen=True)
class Hit:
    """A new article that matched a watch (``match_watches``)."""

    hit_id: int
    watch: str
    article_id: int
    webhook: bool  # the watch posts it to its webhook
    url: str = ""
    title: str = ""
    category: str | None = None
    profile: str = ""

    def to_dict(self) -> dict:
        return {"hit": self.hit_id, "watch": self.watch, "id": self.article_id, "webhook": self.webhook,
                "url": self.url, "title": self.title, "category": self.category, "profile": self.profile}


class Watches:
    """Mixed into ``Store``."""

    db: SqliteDatabase

    def add_watch(self, name: str, words: str = "", topic: str | None = None, site: str | None = None,
                  webhook: str = "") -> WatchRow:
        name, words = " ".join(str(name).split()), " ".join(str(words or "").split())
        topic, site, webhook = (topic or "").strip() or None, (site or "").strip() or None, (webhook or "").strip()
        topic = label_from_text(topic) if topic else None  # "Văn hóa" as the app shows it is the label "Van hoa"
        if not _NAME.match(name):
            raise WatchError("a watch needs a name of 1 to 64 characters")
        if not (words or topic or site):
            raise WatchError("a watch needs words, a topic or a site (or several)")
        if words and not any(search_terms(words)):
            raise WatchError(f"{words!r} has no word to search for")
        if len(words) > 500:
            raise WatchError("a watch's words are at most 500 characters")
        if webhook and (not is_allowed_scheme(webhook) or len(webhook) > 2000):
            raise WatchError(f"the webhook {webhook[:100]!r} is not an http(s) address")
        m = self.models
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            if m.Watch.select().where(m.Watch.name == name).exists():
                raise WatchError(f"a watch named {name!r} exists already")
            if m.Watch.select().count() >= MAX_WATCHES:
                raise WatchError(f"at most {MAX_WATCHES} watches")
            row = m.Watch.create(name=name, words=words, topic=topic, site=site, webhook=webhook)
        return _row(row)

    def watches(self) -> list[WatchRow]:
        m = self.models
        return [_row(w) for w in m.Watch.select().order_by(m.Watch.name)]

    def watch(self, name: str) -> WatchRow | None:
        m = self.models
        found = m.Watch.get_or_none(m.Watch.name == name)
        return _row(found) if found is not None else None

    def remove_watch(self, name: str) -> bool:
        """Delete a watch and its list (the articles stay)."""
        m = self.models
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            found = m.Watch.get_or_none(m.Watch.name == name)
            if found is None:
                return False
            m.WatchHit.delete().where(m.WatchHit.watch == found.id).execute()
            found.delete_instance()
        return True

    # --- the crawl's side: inside StoreSink.write_batch's transaction ----------------------------
    def match_watches(self, new_ids: list[int]) -> list[Hit]:
        """Record which watches these just-stored articles match (call inside the write transaction that
        stored them: the search index has them); the hits, in watch then article order."""
        if not new_ids:
            return []
        execute = self.db.execute_sql
        watches = execute("SELECT id, name, words, topic, site, webhook FROM watch ORDER BY id").fetchall()
        if not watches:
            return []
        ids = sorted(set(new_ids))
        marks = ",".join("?" * len(ids))
        now, hits = str(utcnow()), []
        for watch_id, name, words, topic, site, webhook in watches:
            sql, params = f"SELECT a.id, a.url, a.title, a.category, a.profile FROM article a WHERE a.id IN ({marks})", \
                list(ids)
            if site:
                sql += " AND a.profile = ?"
                params.append(site)
            if topic:
                sql += " AND COALESCE(a.user_label, a.category) = ?"
                params.append(topic)
            include, exclude = search_terms(words) if words else ("", "")
            if words and not (include or exclude):
                continue
            for query, how in ((include, "IN"), (exclude, "NOT IN")):  # the index's rows of this batch only
                if query:  # (a rowid range: FTS5 reads no other row)
                    sql += (f" AND a.id {how} (SELECT rowid FROM article_fts WHERE article_fts MATCH ? "
                            "AND rowid BETWEEN ? AND ?)")
                    params += [query, ids[0], ids[-1]]
            found = execute(sql + " ORDER BY a.id", params).fetchall()
            if not found:
                continue
            state = "pending" if webhook else ""
            # only new articles come here: none has a hit yet; OR IGNORE keeps it so (once per article)
            self.db.cursor().executemany(
                "INSERT OR IGNORE INTO watch_hit (watch_id, article_id, at, seen, webhook_state, webhook_error, "
                "webhook_tries) VALUES (?, ?, ?, 0, ?, '', 0)", [(watch_id, row[0], now, state) for row in found])
            ids_of = dict(execute(f"SELECT article_id, id FROM watch_hit WHERE watch_id = ? AND article_id IN "
                                  f"({','.join('?' * len(found))})", [watch_id, *(row[0] for row in found)]).fetchall())
            hits += [Hit(ids_of[a], name, a, bool(webhook), url, title, category, profile)
                     for a, url, title, category, profile in found if a in ids_of]
        return hits

    # --- the watch's list and its news ------------------------------------------------------------
    def watch_articles(self, name: str, limit: int = 200) -> list[dict]:
        """The watch's articles, newest hit first: article dicts with "hit_at" and "seen"."""
        m = self.models
        watch = m.Watch.get_or_none(m.Watch.name == name)
        if watch is None:
            raise StoreError(f"no watch named {name!r}")
        hits = list(m.WatchHit.select().where(m.WatchHit.watch == watch.id).order_by(m.WatchHit.id.desc()).limit(limit))
        articles = {a.id: a for a in m.Article.select().where(m.Article.id.in_([h.article_id for h in hits]))}
        return [dict(article_dict(articles[h.article_id]), hit_at=str(h.at), seen=h.seen)
                for h in hits if h.article_id in articles]

    def unseen_watch_hits(self) -> dict[str, int]:
        """Per watch, how many of its articles the user has not looked at (watches without any left out)."""
        rows = self.db.execute_sql("SELECT w.name, COUNT(h.id) FROM watch w JOIN watch_hit h ON h.watch_id = w.id "
                                   "WHERE NOT h.seen GROUP BY w.name").fetchall()
        return {name: n for name, n in rows}

    def watch_hit_counts(self) -> dict[str, int]:
        rows = self.db.execute_sql("SELECT w.name, COUNT(h.id) FROM watch w LEFT JOIN watch_hit h "
                                   "ON h.watch_id = w.id GROUP BY w.name").fetchall()
        return {name: n for name, n in rows}

    def mark_watch_seen(self, name: str) -> None:
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            self.db.execute_sql("UPDATE watch_hit SET seen = 1 WHERE NOT seen AND watch_id = "
                                "(SELECT id FROM watch WHERE name = ?)", (name,))

    # --- webhooks -------------------------------------------------------------------------------
    def pending_webhooks(self, limit: int = 10_000) -> list[tuple[int, str, int]]:
        """(hit id, webhook URL, tries so far) of the hits whose POST has not gone through yet."""
        return self.db.execute_sql(
            "SELECT h.id, w.webhook, h.webhook_tries FROM watch_hit h JOIN watch w ON w.id = h.watch_id "
            "WHERE h.webhook_state = 'pending' AND w.webhook != '' ORDER BY h.id LIMIT ?", (limit,)).fetchall()

    def webhook_payload(self, hit_id: int) -> dict | None:
        """What a webhook receives for a hit: the article (the one article shape) and the watch's name."""
        row = self.db.execute_sql("SELECT h.article_id, w.name FROM watch_hit h JOIN watch w ON w.id = h.watch_id "
                                  "WHERE h.id = ?", (hit_id,)).fetchone()
        if row is None:
            return None
        article = self.get_article(row[0])
        return None if article is None else dict(article_dict(article), watch=row[1])

    def webhook_tried(self, hit_id: int, state: str, error: str = "") -> None:
        """One POST of a hit done: ``state`` sent, pending (tried again later) or failed."""
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            self.db.execute_sql("UPDATE watch_hit SET webhook_state = ?, webhook_error = ?, "
                                "webhook_tries = webhook_tries + 1 WHERE id = ?", (state, error[:500], hit_id))


def _row(w) -> WatchRow:
    return WatchRow(w.id, w.name, w.words, w.topic, w.site, w.webhook)
