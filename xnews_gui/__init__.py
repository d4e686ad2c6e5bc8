"""XNews: wrapper builder, crawler, topic classifier and offline reader for news sites."""

__version__ = "0.1.0"
