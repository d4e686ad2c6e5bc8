"""Re-extract a profile's stored articles from their saved raw pages: no network, nothing lost.

    plan = plan_reextract(store, profile)           # which articles' fields the current rules change
    plan.summary()                                  # "7 of 300 stored articles change (body 7)"
    done = apply_reextract(store, profile, plan)     # they take the new fields; the prior ones are a version

After a repair is accepted, a profile edited or reverted, the articles stored with the old rules keep
the old values until they are crawled again, which a news site may never offer. Their raw pages are in
the store (``core.disk.raw_pages``): the same extraction the crawl runs (``core.extraction.extract``, the page's
recorded content type) gives what the current rules say. An article whose page is not kept, or on
whose page the rules now find no article, keeps what it has; each replaced article keeps its prior
values as an earlier version (``store.revisions``), its topic is classified again (the user's own label
stays) and its near-duplicate group worked out again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..core.text.encoding import FetchedHtml
from ..core.extraction.extract import extract
from ..core.profile.profile import Profile
from ..core.disk.raw_pages import RawPageError, read_raw
from ..store import Store
from ..store.revisions import FIELDS, article_fields

_NAMES = {"image_url": "image", "body_html": "body", "body_text": "body", "published": "date"}
CHUNK = 200  # articles re-extracted and written at a time


@dataclass
class ReextractPlan:
    profile: str
    stored: int = 0
    without_page: int = 0  # no raw page kept (stored with --no-raw, imported, or its pack is gone)
    failing: int = 0  # the current rules give no article on the saved page: kept as stored
    changes: list = field(default_factory=list)  # (article id, url, [changed field names])
    fields: Counter = field(default_factory=Counter)

    @property
    def count(self) -> int:
        return len(self.changes)

    def summary(self) -> str:
        fields = ", ".join(f"{name} {n}" for name, n in self.fields.most_common())
        text = f"{self.count:,} of {self.stored:,} stored articles change" + (f" ({fields})" if fields else "")
        notes = []
        if self.without_page:
            notes.append(f"{self.without_page:,} have no saved page")
        if self.failing:
            notes.append(f"on {self.failing:,} saved pages the rules find no article (those stay as stored)")
        return text + ("; " + "; ".join(notes) if notes else "")


def _rows(store: Store, profile: str, ids=None):
    sql = (f"SELECT a.id, a.url, {', '.join('a.' + f for f in FIELDS)}, p.raw_path, p.content_type "
           "FROM article a LEFT JOIN page p ON p.url = a.url WHERE a.profile = ?")
    params: list = [profile]
    if ids is not None:
        sql += f" AND a.id IN ({','.join('?' * len(ids))})"
        params += list(ids)
    return store.db.execute_sql(sql + " ORDER BY a.id", params).fetchall()


def _extracted(store: Store, profile: Profile, url: str, raw_path: str | None, content_type: str | None):
    """The article the rules give on the saved page; "no page" or "failing" when there is none."""
    if not raw_path:
        return "no page"
    try:
        body = read_raw(store.raw_root, raw_path)
    except (OSError, RawPageError):
        return "no page"
    article = extract(FetchedHtml(body, content_type or ""), url, profile)
    return article if article.ok else "failing"


def plan_reextract(store: Store, profile: Profile, keep_going: Callable[[], bool] | None = None) -> ReextractPlan:
    """Extract every stored article of the profile again from its saved page; which would change.
    ``keep_going()`` is asked between articles (False: stop, the plan so far is returned)."""
    plan = ReextractPlan(profile.name)
    for row in _rows(store, profile.name):
        if keep_going is not None and not keep_going():
            break
        article_id, url, stored, raw_path, content_type = row[0], row[1], row[2:2 + len(FIELDS)], row[-2], row[-1]
        plan.stored += 1
        new = _extracted(store, profile, url, raw_path, content_type)
        if new == "no page":
            plan.without_page += 1
            continue
        if new == "failing":
            plan.failing += 1
            continue
        changed = [f for f, old, value in zip(FIELDS, stored, article_fields(new)) if (old or "") != (value or "")]
        if changed:
            names = list(dict.fromkeys(_NAMES.get(f, f) for f in changed))
            plan.changes.append((article_id, url, names))
            plan.fields.update(names)
    return plan


def apply_reextract(store: Store, profile: Profile, plan: ReextractPlan, *, classifier=None, reason: str = "",
                    keep_going: Callable[[], bool] | None = None) -> int:
    """Replace the fields of the plan's articles with what the current rules extract from their saved
    pages (extracted again here: a plan holds no page), the prior values kept as a version; how many
    articles changed. ``classifier``: the topic model (None: their topics stay)."""
    why = f"re-extracted{': ' + reason if reason else ''}"[:200]
    done = 0
    ids = [article_id for article_id, _, _ in plan.changes]
    for start in range(0, len(ids), CHUNK):
        if keep_going is not None and not keep_going():
            break
        fresh = []
        for row in _rows(store, profile.name, ids[start:start + CHUNK]):
            new = _extracted(store, profile, row[1], row[-2], row[-1])
            if not isinstance(new, str):
                fresh.append((row[1], new))
        topics = _classify(classifier, [a for _, a in fresh])
        with store.writing():
            for (url, article), topic in zip(fresh, topics):
                outcome = store.revise_article(url, article_fields(article), content_hash=article.content_hash,
                                               reason=why, category=topic[0], confidence=topic[1],
                                               section_label=profile.topic_for_url(url),
                                               keep_topic=classifier is None)  # the model's "no topic" too
                done += bool(outcome and outcome[1])
    store.group_duplicates()
    return done


def _classify(model, articles: list) -> list[tuple]:
    if model is None or not articles:
        return [(None, None)] * len(articles)
    texts = ["\n".join(filter(None, (a.title, a.summary, a.body_text))) for a in articles]
    many = getattr(model, "predict_many", None)
    predictions = many(texts) if many is not None else [model.predict(t) for t in texts]
    return [(label, float(confidence)) for label, confidence in predictions]
