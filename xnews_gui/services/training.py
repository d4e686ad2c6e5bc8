"""What the classifier learns from and reads in the store (for `train --from-db` and the Classifier screen)."""

from __future__ import annotations

from ..classify import corpus
from ..store import Store


def article_text(article) -> str:
    """What the classifier reads of a stored article (the crawler sends the same)."""
    return "\n".join(part for part in (article.title, article.summary, article.body_text) if part)


def training_docs(store: Store) -> list[corpus.Doc]:
    """Stored articles labelled by the user's correction, else by their site section."""
    docs = []
    Article = store.models.Article
    query = Article.select().where(Article.user_label.is_null(False) | Article.section_label.is_null(False))
    for a in query.order_by(Article.id):
        label = (a.user_label or a.section_label or "").strip()
        text = article_text(a)
        if label and text.strip():
            docs.append(corpus.Doc(text, label, f"article:{a.id}"))
    return docs
