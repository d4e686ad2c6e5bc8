"""The published entry point of extraction: ``extract(html, url, profile) -> Article``.

Outside tools (the held-out layout check of issue 24, scripts of users) import it by this path; the work
is done in ``core.extraction.extract``. Keep this path stable."""

from .extraction.extract import extract

__all__ = ["extract"]
