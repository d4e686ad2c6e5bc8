"""Item pipelines of the exported project: the topic, by the desktop's classifier."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def classifier_text(item: dict) -> str:
    """What the desktop crawl classifies: title, summary and body text."""
    return "\n".join(filter(None, (item.get("title"), item.get("summary"), item.get("body_text"))))


class TopicPipeline:
    """``topic`` and ``confidence`` from the topic model shipped in the project; without a model
    (or with ``-s XNEWS_CLASSIFY=0``), the topic is the site section the URL belongs to."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.model = None
        if crawler.settings.getbool("XNEWS_CLASSIFY", True):
            self.model = load_model(crawler.settings.get("XNEWS_DATA_PACKAGE") or "")

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        if self.model is None:
            item["topic"], item["confidence"] = item.get("section"), None
            return item
        try:
            prediction = self.model.predict(classifier_text(item))
            label, confidence = prediction  # label None: out of the model's domain, the reason says why
            item["topic"], item["confidence"] = label, float(confidence)
            if label is None and getattr(prediction, "reason", ""):
                item["topic_note"] = prediction.reason
        except Exception as exc:  # a broken model must not stop the crawl
            self.crawler.stats.inc_value("xnews/classifier_errors")
            log.warning("classifier failed on %s: %s", item.get("url"), exc)
            item["topic"], item["confidence"] = item.get("section"), None
        return item


def load_model(package: str):
    from ..classify.model import ModelError, TopicClassifier
    from .packaged import model_file

    if not package:
        return None
    path = model_file(package)
    if path is None:
        log.info("no topic model in %s: items get their section's topic", package)
        return None
    try:
        return TopicClassifier.load(path)
    except ModelError as exc:
        log.warning("topic model not usable (%s): items get their section's topic", exc)
        return None
    finally:
        path.unlink(missing_ok=True)
