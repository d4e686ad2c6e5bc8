"""Re-label the stored articles with the model in use (after the user chose another model).

    result = reclassify(store, Registry(root), profile=None, progress=..., should_stop=...)

Every stored article (or one profile's) gets the topic the model in use gives it now, as a crawl
would (no topic, with the confidence it was asked with, for text outside the model's domain); an
article the user corrected keeps the user's topic. Written a chunk at a time, each chunk in one
transaction: a stop leaves every article with either its old label or its new one, and the
result says how far it got. Qt-free: the app runs it in a process of its own, the CLI in its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Callable

from .model_registry import Registry
from ..core.text.topics import display_name
from ..store import Store
from .training import stored_texts


@dataclass
class ReclassifyResult:
    model: str  # the registry id of the model used
    total: int  # articles to look at
    done: int = 0
    changed: int = 0
    corrections: int = 0  # articles that keep the user's topic
    without_topic: int = 0  # articles the model gives no topic now
    to: dict = field(default_factory=dict)  # label -> how many articles changed to it
    cancelled: bool = False

    def summary(self, model_name: str = "") -> str:
        who = model_name or f"model {self.model}"
        head = (f"stopped after {self.done:,} of {self.total:,} articles" if self.cancelled
                else f"re-classified {self.done:,} articles")
        changes = ", ".join(f"{display_name(k) or 'no topic'} {n:,}" for k, n in list(self.to.items())[:4])
        out = (f"{head} with {who}: {self.changed:,} label{'s' if self.changed != 1 else ''} changed"
               + (f" ({changes})" if changes else "")
               + f"; {self.corrections:,} correction{'s' if self.corrections != 1 else ''} of yours kept"
               + (f"; {self.without_topic:,} without a topic" if self.without_topic else ""))
        if self.cancelled:
            out += f"; the other {self.total - self.done:,} keep their earlier labels"
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def reclassify(store: Store, registry: Registry, *, profile: str | None = None,
               progress: Callable[[int, int], None] = lambda done, total: None,
               should_stop: Callable[[], bool] = lambda: False) -> ReclassifyResult:
    version_id = registry.active_id()
    model = registry.load_active()
    total = store.count_articles(profile)
    result = ReclassifyResult(version_id, total)
    to: Counter = Counter()
    progress(0, total)
    for chunk in stored_texts(store, profile, should_stop):
        updates = []
        free = [row for row in chunk if not row[4]]
        predictions = iter(model.predict_many([row[1] for row in free])) if free else iter(())
        for article_id, _text, category, confidence, user_label in chunk:
            if user_label:
                result.corrections += 1
                label, score = user_label, 1.0
            else:
                label, score = next(predictions)
                score = float(score)
                result.without_topic += label is None
            if label != category:
                result.changed += 1
                to[label or ""] += 1
            if label != category or score != confidence:
                updates.append((label, score, article_id, user_label or None))
        if updates:
            with store.writing():
                # only if the user's label is still the one read: a correction made meanwhile stays (it is theirs)
                store.db.cursor().executemany("UPDATE article SET category = ?, confidence = ? "
                                              "WHERE id = ? AND user_label IS ?", updates)
        result.done += len(chunk)
        progress(result.done, total)
    result.to = dict(to.most_common())
    result.cancelled = result.done < total and should_stop()
    if not result.cancelled and profile is None:
        registry.mark_reclassified(version_id)
    return result
