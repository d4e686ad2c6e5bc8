"""Articles that follow their source: a changed article becomes a new version of itself, a gone one
is marked, and the earlier versions are kept.

    store.stored_copies(urls)                 # {url: {"etag", "last_modified", "modified_at", "fetched_at", "gone"}}
    store.revise_article(url, article, ...)    # in a write transaction: (id, changed) or None (not stored)
    store.mark_gone(urls)                      # gone_at set (the article stays, readable)
    store.article_versions(article_id)         # [ArticleVersion], newest first

A revision keeps the article's row and id (its read and starred flags, the user's label, its place in
lists): the previous title, summary, body, author, date and topic go into ``article_version``; the
full-text index follows by the article's UPDATE trigger; the near-duplicate group is worked out
again (``group_duplicates``). Only the last ``KEEP_VERSIONS`` earlier versions of an article are kept.
"""

from __future__ import annotations

from peewee import SqliteDatabase

from ..core.text.urls import UrlError, canonical
from .models import ArticleVersion, utcnow

KEEP_VERSIONS = 20
UPDATED, UNCHANGED = "updated", "unchanged"  # a revisit's outcome, as the crawl's sink protocol names it
FIELDS = ("title", "summary", "image_url", "body_html", "body_text", "author", "published")
_SOURCE = ("etag", "last_modified", "modified_at")


def article_fields(article) -> tuple:
    """An extracted ``core.extraction.extract.Article`` as the article row's FIELDS."""
    return (article.title, article.summary, article.image, article.body_html, article.body_text, article.author,
            article.date)


class Revisions:
    """Mixed into ``Store``."""

    db: SqliteDatabase

    def stored_copies(self, urls) -> dict[str, dict]:
        """What the store knows of these (canonical) URLs' stored copies: validators, source date,
        when fetched (ISO, UTC) and whether the source said they are gone."""
        urls = list(dict.fromkeys(urls))
        out: dict[str, dict] = {}
        for i in range(0, len(urls), 900):
            chunk = urls[i:i + 900]
            rows = self.db.execute_sql(
                f"SELECT url, etag, last_modified, modified_at, fetched_at, gone_at FROM article "
                f"WHERE url IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            for url, etag, last_modified, modified_at, fetched_at, gone_at in rows:
                out[url] = {"etag": etag or "", "last_modified": last_modified or "", "modified_at": modified_at or "",
                            "fetched_at": str(fetched_at or ""), "gone": gone_at is not None}
        return out

    def stored_article_urls(self, profile: str, include_gone: bool = False) -> list[str]:
        """The URLs of a profile's stored articles, oldest first."""
        gone = "" if include_gone else " AND gone_at IS NULL"
        return [r[0] for r in self.db.execute_sql(
            f"SELECT url FROM article WHERE profile = ?{gone} ORDER BY id", (profile,)).fetchall()]

    def revise_article(self, url: str, fields: tuple, *, content_hash: str, reason: str, category=None,
                       confidence=None, section_label=None, source: tuple | None = None,
                       keep_topic: bool = False) -> tuple[int, bool] | None:
        """In a write transaction: the stored article of ``url`` takes these FIELDS (and topic) when
        they differ from its own, its previous ones kept as a version; ``source``: its (etag,
        last_modified, modified_at) to remember, changed or not (a gone article answering again is
        not gone any more). (id, changed), or None when no article of that URL is stored.
        ``keep_topic``: the topic is left as it is (a re-extraction without a classifier)."""
        try:
            url = canonical(url)
        except UrlError:
            return None
        row = self.db.execute_sql(
            f"SELECT id, {', '.join(FIELDS)}, category, confidence, user_label, fetched_at "
            "FROM article WHERE url = ?", (url,)).fetchone()
        if row is None:
            return None
        article_id, old, (old_category, old_confidence, user_label, fetched_at) = row[0], row[1:8], row[8:]
        fields = tuple("" if v is None else v for v in fields)
        changed = tuple("" if v is None else v for v in old) != fields
        sets, params = [], []
        if source is not None:
            sets += [f"{c} = ?" for c in _SOURCE] + ["gone_at = NULL"]
            params += list(source)
        if changed:
            number = (self.db.execute_sql("SELECT MAX(number) FROM article_version WHERE article_id = ?",
                                          (article_id,)).fetchone()[0] or 0) + 1
            self.db.execute_sql(
                f"INSERT INTO article_version (article_id, number, at, reason, {', '.join(FIELDS)}, category, "
                "confidence, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (article_id, number, str(utcnow()), reason[:200], *old, old_category, old_confidence, fetched_at))
            self.db.execute_sql("DELETE FROM article_version WHERE article_id = ? AND number <= ?",
                                (article_id, number - KEEP_VERSIONS))
            sets += [f"{c} = ?" for c in FIELDS] + ["content_hash = ?", "updated_at = ?", "dup_sig = NULL",
                                                     "dup_size = NULL", "dup_group = NULL"]
            params += [*fields, content_hash, str(utcnow())]
            if not keep_topic and not user_label:  # the user's own label stays
                sets += ["category = ?", "confidence = ?"]
                params += [category, confidence]
            if section_label is not None:
                sets.append("section_label = ?")
                params.append(section_label)
        if sets:
            self.db.execute_sql(f"UPDATE article SET {', '.join(sets)} WHERE id = ?", (*params, article_id))
        return article_id, changed

    def mark_gone(self, urls, when=None) -> int:
        """In a write transaction (or its own): the source answered 404/410 for these articles; how many
        were marked (already marked ones keep their first date)."""
        urls = list(urls)
        when = str(when or utcnow())
        marked = 0
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            for i in range(0, len(urls), 900):
                chunk = urls[i:i + 900]
                marked += self.db.execute_sql(
                    f"UPDATE article SET gone_at = ? WHERE gone_at IS NULL AND url IN ({','.join('?' * len(chunk))})",
                    (when, *chunk)).rowcount
        return marked

    def article_versions(self, article_id: int) -> list[ArticleVersion]:
        """The earlier versions of an article, newest first."""
        m = self.models
        return list(m.ArticleVersion.select().where(m.ArticleVersion.article == article_id)
                    .order_by(m.ArticleVersion.number.desc()))

    def version_counts(self, ids) -> dict[int, int]:
        """How many earlier versions each of these articles has (only those with some)."""
        ids = list(ids)
        out: dict[int, int] = {}
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            out.update(self.db.execute_sql(
                f"SELECT article_id, COUNT(*) FROM article_version WHERE article_id IN ({','.join('?' * len(chunk))}) "
                "GROUP BY article_id", chunk).fetchall())
        return out


__all__ = ["Revisions", "ArticleVersion", "FIELDS", "KEEP_VERSIONS", "UPDATED", "UNCHANGED", "article_fields"]
