"""Parsing: what a fetched page gives the crawl. Each page is parsed once.

A list page gives links (``core.extraction.links.follow``, the one link extraction the inspector's
preview shares) and, for best-first and focused crawls, a relevance score; an article
page gives an ``Article`` (``core.extraction.extract``). The parser only reads pages: what the crawl
does with the links (its state, the frontier) is the engine's and the queuer's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from ..core.text.encoding import FetchedHtml
from ..core.extraction.extract import extract, needs_render
from ..core.extraction.html_text import parse_fetched, parse_page
from ..core.extraction.links import follow
from ..core.extraction.load_more import applies, count_selector
from ..core.profile.profile import Profile
from ..core.text.urls import UrlError, canonical
from .options import CrawlOptions
from .relevance import KeywordRelevance
from .render import GENERIC_PROFILE, RenderError, embedded_article, generic_page


@dataclass(slots=True)
class ListPage:
    articles: list  # (canonical URL, anchor text or "")
    lists: list
    score: float
    expand: bool  # False: a focused crawl's page under the relevance threshold (its links are not followed)
    fingerprint: str | None  # of its article links


class PageParser:
    def __init__(self, profile: Profile, options: CrawlOptions, strategy: str, model,
                 on_error: Callable[[str, str, str], None], renderer=None, stats=None,
                 on_warning: Callable[[str], None] = lambda message: None):
        self.profile = profile
        self.on_warning = on_warning  # what the crawl's summary and log should say (a list page cut at its limit)
        self.renderer = renderer  # crawl.render.Renderer, for profiles marked "render"
        self.stats = stats
        self.options = options
        self.strategy = strategy
        self.model = model  # pipeline.ModelSource
        self.on_error = on_error
        settings = profile.crawl
        self.threshold = settings.relevance_threshold if options.relevance_threshold is None \
            else options.relevance_threshold
        self.keywords = KeywordRelevance(settings.topic_keywords)

    def list_page(self, req, text, url: str, utf8: bytes | None = None) -> ListPage:
        """The page's links: article and list links as (canonical URL, anchor text or ""), its relevance
        score, whether a focused crawl expands it, and the fingerprint of its article links (None: it has
        none), by which its revisit interval follows how often they change. ``text``: the page's text or its
        ``FetchedHtml`` (parsed from its bytes, the text decoded only when needed); ``utf8``: as for
        ``article_page`` (lxml parses those bytes: a quarter cheaper)."""
        if isinstance(text, FetchedHtml):
            doc = parse_fetched(text, url)
            if doc is None:
                doc = parse_page(text.text, text.utf8, url)
        else:
            doc = parse_page(text, utf8, url)
        if self.profile.more is not None and applies(self.profile.more, url, doc):
            loaded = self.loaded_more(url)
            doc = doc if loaded is None else loaded
        score = 1.0
        expand = True
        if self.strategy in ("best_first", "focused"):
            score = self.relevance(doc)
            expand = not (self.strategy == "focused" and req.depth > 0 and score < self.threshold)
        anchors = self.strategy == "importance"
        domains, limit = self.profile.allowed_domains, self.options.max_url_length
        articles = follow(doc, url, self.profile.articles, domains, max_url_length=limit,
                          anchors=anchors) if self.profile.articles else []
        fingerprint = hashlib.sha1("\n".join(sorted(u for u, _ in articles)).encode()).hexdigest() \
            if articles else None
        lists = follow(doc, url, self.profile.lists, domains, max_url_length=limit,
                       anchors=anchors) if expand and self.profile.lists else []
        return ListPage(articles, lists, score, expand, fingerprint)

    def loaded_more(self, url: str):
        """The list page parsed after loading more (its button clicked or scrolled by the renderer); None
        when it cannot be (the error is reported and the raw page's links are taken)."""
        if self.renderer is None:
            self.on_error(url, "render", "the profile's list pages load more by JavaScript but this crawl has "
                                         "no render pool: only the links of the raw page are taken")
            return None
        more = self.profile.more
        try:
            result = self.renderer.load_more(url, more, count_selector(self.profile))
        except RenderError as exc:
            self.on_error(url, "render", f"loading more: {exc}")
            return None
        self._count(loaded_more_pages=1, loaded_more=result.loads)
        warning = result.warning(url, more)
        if warning:
            self._count(more_at_limit=1)
            self.on_warning(warning)
        return parse_page(result.html, b"", url)

    def relevance(self, doc) -> float:
        text = " ".join(doc.itertext())  # not text_content(): it glues words of adjacent elements
        topics = self.options.topics or self.profile.crawl.focus_topics
        model = self.model.get() if topics and self.model.present else None
        proba = getattr(model, "proba", None)
        if proba is not None:
            try:
                probs = proba(text)
                return min(1.0, sum(probs.get(t, 0.0) for t in topics))
            except Exception as exc:  # a broken model must not stop the crawl
                self.on_error("", "classifier", f"{exc.__class__.__name__}: {exc}")
        if self.keywords:
            return self.keywords(text)
        return 1.0

    def article_page(self, text, url: str, utf8: bytes | None = None):
        """``text``: the page's text or its ``FetchedHtml``; ``utf8``: ``decode_html_utf8``'s bytes
        (exactly ``text``'s UTF-8, no control character)."""
        article = extract(text, url, self.profile, utf8=utf8)
        if self.profile.render is not None:
            failed = needs_render(self.profile, article)  # a fallback may have made the article ok
            if not article.ok or failed:
                rendered = self.rendered(text.text if isinstance(text, FetchedHtml) else text, url)
                if rendered is not None:
                    article = rendered
                elif failed and article.ok:  # what the raw HTML gave is not the marked field: never stored as it
                    article.errors += [f"{f}: needs JavaScript and the page could not be rendered" for f in failed]
        if article.ok:
            try:
                article.url = canonical(url)
            except UrlError:
                pass
        return article

    def rendered(self, text: str, url: str):
        """The article of a page that needs JavaScript: from its embedded JSON if it has some, else
        from the page rendered by the renderer; None when neither gives one (the error is reported)."""
        found = embedded_article(text)
        if found:
            article = extract(generic_page(found), url, GENERIC_PROFILE)
            if article.ok:
                self._count(from_embedded_json=1)
                return article
        if self.renderer is None:
            self.on_error(url, "render", "the profile needs JavaScript but this crawl has no render pool")
            return None
        settings = self.profile.render
        try:
            html = self.renderer.render(url, settings.wait_for, settings.timeout_s)
        except RenderError as exc:
            self.on_error(url, "render", str(exc))
            return None
        self._count(rendered=1)
        return extract(html, url, self.profile)

    def _count(self, **counts) -> None:
        if self.stats is not None:
            self.stats.add(**counts)
