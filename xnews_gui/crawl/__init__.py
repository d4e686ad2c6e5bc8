"""The crawler: Qt-free, handed a sink and an optional classifier (see ``sink``)."""

from .engine import CrawlEvent, CrawlOptions, Crawler
from .frontier import make_scheduler
from .request import Request
from .sink import Classifier, MemorySink, Sink

__all__ = ["CrawlEvent", "CrawlOptions", "Crawler", "Request", "make_scheduler", "Classifier", "MemorySink",
           "Sink"]
