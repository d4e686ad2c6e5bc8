"""What the classifier learns from and reads in the store (for `train --from-db` and the Classifier screen)."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Iterator

from ..classify import corpus
from ..store import Store

CHUNK = 500  # articles read (and predicted) at a time


def article_text(article) -> str:
    """What the classifier reads of a stored article (the crawler sends the same)."""
    return "\n".join(part for part in (article.title, article.summary, article.body_text) if part)


def training_docs(store: Store, exclude: Iterable[int] = ()) -> list[corpus.Doc]:
    """Stored articles labelled by the user's correction, else by their site section (``exclude``:
    ids of corrections the user chose to leave out)."""
    skip = set(exclude)
    docs = []
    Article = store.models.Article
    query = Article.select().where(Article.user_label.is_null(False) | Article.section_label.is_null(False))
    for a in query.order_by(Article.id):
        label = (a.user_label or "").strip() if a.id not in skip else ""
        label = label or (a.section_label or "").strip()
        text = article_text(a)
        if label and text.strip():
            docs.append(corpus.Doc(text, label, f"article:{a.id}"))
    return docs


def stored_texts(store: Store, profile: str | None = None,
                 should_stop: Callable[[], bool] = lambda: False) -> Iterator[list[tuple]]:
    """Chunks of (id, text, category, confidence, user_label) of the stored articles, in id order."""
    where, params = ("WHERE profile = ?", [profile]) if profile else ("", [])
    last = 0
    while not should_stop():
        rows = store.db.execute_sql(
            f"SELECT id, title, summary, body_text, category, confidence, user_label FROM article "
            f"{where + (' AND' if where else 'WHERE')} id > ? ORDER BY id LIMIT {CHUNK}", [*params, last]).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield [(r[0], "\n".join(p for p in r[1:4] if p), r[4], r[5], r[6]) for r in rows]


def corrections_to_review(store: Store, in_use) -> list[dict]:
    """The user's corrections that contradict the model in use (the ones a retrain learns from):
    ``{"id", "title", "model_label", "confidence", "user_label", "no_topic"}`` (``model_label`` "": the app
    shows no topic, ``no_topic`` says why), largest group of one label first."""
    Article = store.models.Article
    rows = list(Article.select(Article.id, Article.title, Article.summary, Article.body_text, Article.user_label)
                .where(Article.user_label.is_null(False)).order_by(Article.id))
    if not rows or in_use is None:
        return []
    out = []
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        # as the app shows the topic (guard and floor): "no topic: not Vietnamese", not a label it never showed
        for a, p in zip(chunk, in_use.predict_many([article_text(a) for a in chunk])):
            if p.label != a.user_label:
                out.append({"id": a.id, "title": a.title, "model_label": p.label or "",
                            "confidence": round(float(p.confidence), 4), "user_label": a.user_label,
                            "no_topic": p.reason if p.label is None else ""})
    sizes = Counter(c["user_label"] for c in out)
    out.sort(key=lambda c: (-sizes[c["user_label"]], c["user_label"], c["id"]))
    return out


def label_changes(store: Store, new, old, should_stop: Callable[[], bool] = lambda: False) -> dict:
    """What using ``new`` instead of ``old`` would do to the stored articles' topics (corrections
    stay): ``{"articles", "changed", "to": {label: n}, "from": {label: n}}``."""
    total = changed = 0
    to, from_ = Counter(), Counter()
    for chunk in stored_texts(store, should_stop=should_stop):
        free = [row for row in chunk if not row[4]]
        total += len(chunk)
        if not free:
            continue
        texts = [row[1] for row in free]
        for a, b in zip(new.predict_many(texts), old.predict_many(texts) if old is not None else [(None, 0)] * len(free)):
            if a[0] != b[0]:
                changed += 1
                to[a[0] or ""] += 1
                from_[b[0] or ""] += 1
    return {"articles": total, "changed": changed, "to": dict(to.most_common()), "from": dict(from_.most_common())}
