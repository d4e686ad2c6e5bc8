"""Read-side queries for the results table and the exporters: filters, ordered ids, row blocks.

The table asks for the ordered ids of everything that matches (cheap: one indexed
column plus the sort key), then loads the visible rows in small blocks by primary key.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from datetime import timedelta

from peewee import SqliteDatabase

from .models import utcnow
from .repo import article_dict, search_terms

# column name -> SQL expression used to order by it
SORT_KEYS = {
    "profile": "a.profile",
    "title": "vi_key(a.title)",  # Vietnamese order (store/collation.py): Python compares the keys the same way
    "category": "topic_key(a.category)",  # as shown: its Vietnamese name, in Vietnamese order
    "published": "a.published",
    "fetched_at": "a.fetched_at",
    "status": "(a.read * 2 - a.starred)",
    "id": "a.id",  # the order articles were stored in
}
ROW_COLUMNS = ("id", "profile", "title", "category", "confidence", "published", "fetched_at",
               "read", "starred", "user_label", "url", "updated_at", "gone_at", "sources")
# columns computed in SQL; "sources": how many stored articles tell the same story (1 = no duplicate)
_COMPUTED = {"sources": "(CASE WHEN a.dup_group IS NULL THEN 1 ELSE "
                        "(SELECT COUNT(*) FROM article d WHERE d.dup_group = a.dup_group) END)"}
FETCH_ROWS = 2000  # rows per step of a long ordered read (ordered_columns)
UNCATEGORIZED = "\x00uncategorized"  # a category filter value meaning "no category yet"


@dataclass(frozen=True)
class ArticleFilter:
    profile: str | None = None
    category: str | None = None  # a name, or UNCATEGORIZED
    since_days: int | None = None  # published (or fetched, when no date) within the last N days
    unread_only: bool = False
    starred_only: bool = False
    text: str = ""  # FTS5 over title, summary and body
    hide_hidden_categories: bool = True
    # one article per story: the first stored of each near-duplicate group among the articles of the site,
    # topic and search asked for (a story whose first copy is another site's still shows under this site's
    # filter); unread, starred, date and removed then apply to that copy (reading it does not bring another back)
    hide_duplicates: bool = False
    gone_only: bool = False  # only the articles their source removed (gone_at set)

    def where(self) -> tuple[str, list]:
        """A SQL condition over the alias ``a`` and its parameters (all but ``hide_duplicates``, which
        ``Queries.ordered_columns`` applies between the two parts of ``parts``)."""
        (scope, scope_params), (state, state_params) = self.parts()
        return f"{scope} AND {state}", scope_params + state_params

    def parts(self, t: str = "a") -> tuple[tuple[str, list], tuple[str, list]]:
        """(which articles: site, topic, search), (which of those: unread, starred, date, removed), each a SQL
        condition over the alias ``t`` with its parameters."""
        parts, params = ["1"], []
        if self.profile:
            parts.append(f"{t}.profile = ?")
            params.append(self.profile)
        if self.category == UNCATEGORIZED:
            parts.append(f"{t}.category IS NULL")
        elif self.category:
            parts.append(f"{t}.category = ?")
            params.append(self.category)
        elif self.hide_hidden_categories:
            parts.append(f"({t}.category IS NULL OR {t}.category NOT IN (SELECT name FROM category WHERE hidden))")
        include, exclude = search_terms(self.text) if self.text else ("", "")
        if self.text and not (include or exclude):
            parts.append("0")
        if include:
            parts.append(f"{t}.id IN (SELECT rowid FROM article_fts WHERE article_fts MATCH ?)")
            params.append(include)
        if exclude:
            parts.append(f"{t}.id NOT IN (SELECT rowid FROM article_fts WHERE article_fts MATCH ?)")
            params.append(exclude)
        state, state_params = ["1"], []
        if self.since_days is not None:
            since = utcnow() - timedelta(days=self.since_days)
            state.append(f"(CASE WHEN {t}.published GLOB '[0-9][0-9][0-9][0-9]-*' THEN {t}.published "
                         f"ELSE {t}.fetched_at END) >= ?")
            state_params.append(since.date().isoformat())  # both date formats start with YYYY-MM-DD
        if self.unread_only:
            state.append(f"NOT {t}.read")
        if self.starred_only:
            state.append(f"{t}.starred")
        if self.gone_only:
            state.append(f"{t}.gone_at IS NOT NULL")
        return (" AND ".join(parts), params), (" AND ".join(state), state_params)


def sort_expr(column: str) -> str:
    try:
        return SORT_KEYS[column]
    except KeyError:
        raise ValueError(f"cannot sort by {column!r}") from None


class Queries:
    """The read side for the results table and the exporters. Mixed into ``Store``."""

    db: SqliteDatabase

    def ordered_keys(self, flt: ArticleFilter, sort: str = "fetched_at", descending: bool = True,
                     only_ids: list[int] | None = None) -> list[tuple]:
        """(sort key, id) of every matching article, in display order.

        ``only_ids`` restricts the query to some ids (used for articles that just arrived).
        """
        keys, ids = self.ordered_columns(flt, sort, descending, only_ids)
        return list(zip(keys, ids))

    def ordered_columns(self, flt: ArticleFilter, sort: str = "fetched_at", descending: bool = True,
                        only_ids: list[int] | None = None, *, keep_going=None) -> tuple[list, array] | None:
        """The sort keys and the ids of every matching article in display order, as a list and an
        array, read FETCH_ROWS rows at a time; ``keep_going()`` is called after each chunk and
        ends the read (None) when it returns False."""
        keys: list = []
        ids = array("q")
        if only_ids is not None and not only_ids:
            return keys, ids
        direction = "DESC" if descending else "ASC"
        if flt.hide_duplicates:  # the first copy of each story among the site's, topic's, search's articles
            (scope, params), (state, state_params) = flt.parts()
            (scope_b, params_b), _ = flt.parts("b")
            where = (f"{scope} AND (a.dup_group IS NULL OR a.id = (SELECT MIN(b.id) FROM article b "
                     f"WHERE b.dup_group = a.dup_group AND {scope_b})) AND {state}")
            params = params + params_b + state_params
        else:
            where, params = flt.where()
        sql = f"SELECT {sort_expr(sort)} AS k, a.id AS id FROM article a WHERE {where}"
        if only_ids is not None:
            sql += f" AND a.id IN ({','.join('?' * len(only_ids))})"
            params = params + list(only_ids)
        sql += f" ORDER BY k {direction}, id {direction}"
        cursor = self.db.execute_sql(sql, params)
        try:
            while rows := cursor.fetchmany(FETCH_ROWS):
                chunk_keys, chunk_ids = zip(*rows)
                keys += chunk_keys
                ids.extend(chunk_ids)
                if keep_going is not None and not keep_going():
                    return None
        finally:
            cursor.close()
        return keys, ids

    def rows_by_id(self, ids: list[int]) -> dict[int, tuple]:
        """The table's columns (ROW_COLUMNS, no bodies) for these ids."""
        out: dict[int, tuple] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            sql = (f"SELECT {', '.join(_COMPUTED.get(c, 'a.' + c) for c in ROW_COLUMNS)} FROM article a "
                   f"WHERE a.id IN ({','.join('?' * len(chunk))})")
            for row in self.db.execute_sql(sql, chunk).fetchall():
                out[row[0]] = row
        return out

    def distinct_values(self, column: str) -> list[str]:
        if column not in ("profile", "category"):
            raise ValueError(column)
        sql = f"SELECT DISTINCT {column} FROM article WHERE {column} IS NOT NULL ORDER BY {column}"
        return [r[0] for r in self.db.execute_sql(sql).fetchall()]

    def articles_for_export(self, ids: list[int]) -> list[dict]:
        """Full article dicts (repo.article_dict) for these ids, in the given order."""
        m = self.models
        by_id = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            by_id.update({a.id: a for a in m.Article.select().where(m.Article.id.in_(chunk))})
        return [article_dict(by_id[i]) for i in ids if i in by_id]

    def articles_in_order(self, profile: str | None = None, limit: int = 0,
                          skip_duplicates: bool = False) -> list[dict]:
        """Full article dicts, oldest first (all, or one profile's; at most ``limit`` when > 0);
        ``skip_duplicates``: only the first stored article of each story among those."""
        flt = ArticleFilter(profile=profile, hide_hidden_categories=False, hide_duplicates=skip_duplicates)
        _, ids = self.ordered_columns(flt, sort="id", descending=False)
        return self.articles_for_export(list(ids[:limit] if limit else ids))
