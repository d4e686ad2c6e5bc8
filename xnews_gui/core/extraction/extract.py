"""(html, url, profile) -> Article. Pure: no I/O, no globals."""

from __future__ import annotations

import copy
import hashlib
from html import escape
from dataclasses import asdict, dataclass, field

import lxml.html
from lxml import etree

from ..profile.profile import FIELDS, Profile
from ..profile.rules import Rule, RuleError, element_text
from ..text.text import normalize_space
from .date_order import PageDates, read_date
from .completeness import (PageStory, body_problems, completeness_problem, kin_beside, long_story, story_kin,
                           title_problems)
from .script_story import MIN_STORY, script_story_html
from .text_place import drop_page_comments, paragraph_keys, text_block
from .sanitize import element_image_urls, image_urls, sanitize_elements, sanitize_html
from ..text.encoding import FetchedHtml
from .body_clean import drop_comments, drop_headline, drop_link_lists, drop_removed
from .html_text import fragment_text, html_to_text, parse_fetched, parse_fragment, parse_page
from ..text.text import strip_control_chars_html_utf8
from ..text.urls import absolute, is_allowed_scheme


@dataclass
class Article:
    url: str
    title: str = ""
    summary: str = ""
    image: str = ""
    body_html: str = ""
    body_text: str = ""
    author: str = ""
    date: str = ""  # ISO 8601, or "" when the page's date could not be read
    images: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # "field: reason" for each failed required field
    multiple: list = field(default_factory=list)  # fields whose rule matched more than once
    checks: dict = field(default_factory=dict)  # field -> why its value does not fit its content profile ([] = fits)
    fallbacks: list = field(default_factory=list)  # "body: fallback (...)" when a field came from outside its rules

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def content_hash(self) -> str:
        # line breaks are spaces to normalize_space: made spaces first, a single-spaced text is not split
        basis = normalize_space((self.title + " " + self.body_text).replace("\n", " ")).lower()
        return hashlib.sha1(basis.encode("utf-8")).hexdigest()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        data["content_hash"] = self.content_hash
        return data

    def value(self, name: str) -> str:
        return self.body_text if name == "body" else getattr(self, name)


def extract(html, url: str, profile: Profile, content_type: str | None = None, utf8: bytes | None = None) -> Article:
    """Apply the profile's field chains to one article page.

    Each field's rules are tried in order; the first value that fits the field's
    content profile wins (without a content profile: the first non-empty one).
    When none fits, the first non-empty value is kept and ``checks`` says why it
    failed. A body that nothing fills comes from the main-text extractor, and
    ``fallbacks`` says so. ``utf8``: ``decode_html_utf8``'s bytes (the page text's UTF-8, free of
    control characters) when the caller has them, so that they are not made again for the parser.
    """
    doc = parse_fetched(html, url, references=True) if isinstance(html, FetchedHtml) else None
    if doc is not None:  # parsed from the fetched bytes: the text is decoded only if a rule needs it
        page_text = _text_of(html)
    else:
        if isinstance(html, FetchedHtml):
            text, utf8 = html.text, html.utf8
        elif isinstance(html, bytes):
            from ..text.encoding import decode_html

            text, utf8 = decode_html(html, content_type)[0], None
        else:
            text = html
        # a raw \x01 (or &#1;) in a title breaks every XML export downstream
        text, data = strip_control_chars_html_utf8(text, utf8, clean=True)
        doc = parse_page(text, data, url)
        page_text = (lambda: text)
    article = Article(url=url)
    # the page's main text, asked only if a body looks incomplete (after the remove rules have run)
    story = PageStory(page_text, url, main_page=(lambda: lxml.html.tostring(doc, encoding="unicode"))
                      if profile.remove else None, doc=lambda: doc)
    # the body comes last: remove rules (ads, related boxes) apply to it alone, so a
    # removed byline can still be the author
    for name in sorted(FIELDS, key=lambda f: f == "body"):
        rules = profile.rules_for(name)
        chain = profile.chains.get(name)
        expect = chain.expect if chain else None
        anchor_value = _anchor_value(expect, doc) if expect else ""
        if name == "body":
            drop_removed(doc, profile.remove)
        kept: list = []  # the body's elements on the page, as the rule that gave it found them
        value, problems, error = _first_plausible(article, name, rules, doc, story, url, profile.remove, expect,
                                                  anchor_value, doc_read_after="image" not in profile.fields,
                                                  kept=kept)
        if name == "body" and expect is not None and problems:  # only profiles that say what a body looks like
            value, problems = _body_fallback(article, doc, story, url, expect, value, problems, kept)
        if name == "title" and value:
            problems = problems + [p for p in title_problems(value, doc) if p not in problems]
        if error and not value:
            article.errors.append(f"{name}: {error}")
        elif rules and rules[0].required and not value:
            article.errors.append(f"{name}: required field is empty (rule {_describe(rules[0])} matched nothing)")
        if expect is not None or (rules and name in _COMPLETE):
            article.checks[name] = problems if value else ["empty"]
        elif name == "date" and value:  # a date that reads both ways, settled by nothing on the page: doubtful
            article.checks[name] = problems
    if "image" not in profile.fields:
        article.image = _meta(doc, "og:image") or (article.images[0] if article.images else "")
    # against the page's own URL (never a <base href>), and only http(s): javascript:, file:, data: dropped
    article.image = absolute(url, article.image) if article.image else ""
    if article.image and not is_allowed_scheme(article.image):
        article.image = ""
    return article


def rendered_fields(profile: Profile) -> list[str]:
    """The fields a profile marked ``render`` waits for: those with a rule on the ``wait_for`` selector (the
    inspector's *Mark render* sets it from a field's rule), else its required fields."""
    if profile.render is None:
        return []
    wait_for = profile.render.wait_for
    marked = [f for f in FIELDS if any(r.kind == "css" and r.selector == wait_for for r in profile.rules_for(f))]
    return marked or [f for f in FIELDS if profile.fields.get(f) is not None and profile.fields[f].required]


def needs_render(profile: Profile, article: Article) -> list[str]:
    """The marked fields whose rules failed on the raw HTML (empty, doubtful, or filled by a fallback): the
    page must be rendered even when a fallback made the article ok."""
    return [f for f in rendered_fields(profile)
            if not article.value(f) or article.checks.get(f) or any(x.startswith(f + ":") for x in article.fallbacks)]


_COMPLETE = ("title", "body")  # checked against the page itself on every profile, not only against an expect


def _text_of(page: FetchedHtml):
    return lambda: page.text


def _first_plausible(article, name, rules, doc, story, url, remove, expect, anchor_value, doc_read_after=True,
                     kept=None):
    """Set the field from the first rule whose value fits; returns (value, problems, error).
    A body must also be whole (``completeness.body_problems``). ``doc_read_after``: the page is read
    after this field (the body's last rule may change it otherwise). ``kept``: gets the elements of the
    value set."""
    first = None  # (value, problems, candidate) of the first non-empty one
    error = doubt = ""
    page_dates = None
    text = story.page_text
    for i, rule in enumerate(rules):
        try:
            if name == "body":
                candidate = _body_candidate(rule, doc, text, url, remove, expect.per_page if expect else 0,
                                            article.title, last=not doc_read_after and i == len(rules) - 1)
                value = candidate[1]
            else:
                values = _values(rule, doc, text, url)
                if name == "date":  # ISO or nothing, never the page's raw text: an unreadable one lets the next rule try
                    page_dates = page_dates or PageDates(doc, url)
                    read = [r for r in (read_date(v, page_dates) for v in values) if r[0]]
                    values, doubt = [iso for iso, _ in read], (read[0][1] if read else "")
                candidate = values
                value = values[0] if values else ""
        except RuleError as exc:
            error = error or str(exc)
            continue
        if not value:
            continue
        problems = (expect.problems(value, anchor_value) if expect else []) + ([doubt] if doubt else [])
        if (name == "body" and problems and not expect.problems(value, anchor_value, upper_bounds=False)
                and long_story(value, story)):
            problems = []  # longer than the site's stories seen, and the page's main text says it is the story
        if name == "body" and not problems:
            problems = body_problems(candidate[3], value, story, later=i > 0)
        if first is None:
            first = (value, problems, candidate)
        if not problems:
            _set(article, name, candidate)
            if kept is not None and name == "body":
                kept.extend(candidate[3])
            return value, [], ""
    if first is None:
        return "", ["empty"], error
    _set(article, name, first[2])
    if kept is not None and name == "body":
        kept.extend(first[2][3])
    return first[0], first[1], ""


def _set(article, name, candidate) -> None:
    if name == "body":
        article.body_html, article.body_text, article.images = candidate[:3]
        return
    if len(candidate) > 1:
        article.multiple.append(name)
    setattr(article, name, candidate[0])


def _body_fallback(article, doc, story, url, expect, value, problems, elements=()):
    """The body from outside the rules, flagged: the story's blocks beside the rule's one joined (a split
    story), else the main-text extractor's text."""
    why = completeness_problem(problems)
    kin = story_kin(kin_beside(elements), story.tokens) if why.startswith("covers ") else []
    joined = _joined(article.title, [*elements, *kin], url) if kin else None
    if joined:
        article.body_html, article.body_text, article.images = joined
        article.fallbacks.append(f"body: fallback (the story's {len(elements) + len(kin)} sibling blocks joined; "
                                 f"the body the rules give {why})")
        return article.body_text, [f"the rules' body {why}: the story's sibling blocks joined"]
    source = "main-text extractor"
    html = sanitize_html(story.html(), url)
    root = parse_fragment(html)
    if root is None or len(fragment_text(root).strip()) < MIN_STORY:
        scripted = script_story_html(story.page_text())  # a page built in the browser: the story is script data
        scripted = sanitize_html(scripted, url) if scripted else ""
        scripted_root = parse_fragment(scripted) if scripted else None
        if scripted_root is not None:
            source = "the story in the page's scripts: the page builds it with JavaScript, mark the profile render"
            html, root = scripted, scripted_root
    if root is None:
        return value, problems
    anchor = text_block(doc, paragraph_keys(root)) if source == "main-text extractor" else None
    kin = story_kin(kin_beside([anchor]), story.tokens) if anchor is not None else []
    joined = _joined(article.title, [anchor, *kin], url) if kin else None  # a split story no rule knows
    joined_problems = expect.problems(joined[1]) if joined else []
    if joined and _better(joined[1], joined_problems, value):
        article.body_html, article.body_text, article.images = joined
        reason = f"the body the rules give {why}" if why else "the profile's body rules found nothing plausible"
        article.fallbacks.append(f"body: fallback (the story's {1 + len(kin)} sibling blocks joined; {reason})")
        return article.body_text, joined_problems + [
            f"the rules' body {why}: the story's sibling blocks joined" if why
            else "the rules gave nothing plausible: the story's sibling blocks joined"]
    if drop_headline([root], article.title) | drop_comments([root]) | (
            anchor is not None and drop_page_comments(root, anchor)) | drop_link_lists([root]):
        html = (root.text or "") + "".join(lxml.html.tostring(c, encoding="unicode") for c in root)
    images = element_image_urls(root)
    body_text = fragment_text(root)
    new_problems = expect.problems(body_text)
    if not _better(body_text, new_problems, value):
        return value, problems
    article.body_html, article.body_text, article.images = html, body_text, images
    if why:
        article.fallbacks.append(f"body: fallback ({source}; the body the rules give {why})")
        return body_text, new_problems + [f"the rules' body {why}: filled by the fallback"]
    article.fallbacks.append(f"body: fallback ({source}; the profile's body rules found nothing plausible)")
    return body_text, new_problems + ["the rules gave nothing plausible: filled by the fallback"]


def _better(body_text: str, its_problems: list, value: str) -> bool:
    """A fallback's body replaces the rules' one: it passes the field's checks, or doubles a short body."""
    return bool(body_text) and (not value or not its_problems or len(body_text) > 2 * len(value))


def _joined(title: str, elements, url) -> tuple | None:
    """(html, text, images) of a body made of the story's blocks in document order, or None."""
    blocks = [_copy(el) for el in sorted(elements, key=_document_order(elements[0]))]
    drop_headline(blocks, title)
    drop_comments(blocks)  # before the link lists: a comments heading may stand in one
    drop_link_lists(blocks)
    html = sanitize_elements(blocks, url)
    root = parse_fragment(html)
    return (html, fragment_text(root), element_image_urls(root)) if root is not None else None


def _document_order(el):
    """A sort key placing elements of one page in document order."""
    order = {node: i for i, node in enumerate(el.getroottree().getroot().iter())}
    return lambda node: order.get(node, 0)


def _anchor_value(expect, doc) -> str:
    if not expect or not expect.anchor:
        return ""
    kind, _, selector = expect.anchor.partition(":")
    rule = Rule(kind=kind, selector=selector, take="attr:content" if kind == "css" else "text")
    try:
        values = rule.apply(doc)
    except RuleError:
        return ""
    return next((v for v in values if v), "")


def _values(rule: Rule, doc, text, url: str) -> list[str]:
    """``text``: the page's text, when called (regex and markers rules read it)."""
    if rule.kind in ("css", "xpath", "jsonld"):
        values = rule.apply(doc, url)
    else:
        values = rule.apply(text(), url)
        if rule.take == "text":
            values = [normalize_space(v) for v in values]
    return [v for v in values if v]


def _body_candidate(rule: Rule, doc, text, url: str, remove, per_page: int = 0,
                    title: str = "", last: bool = False) -> tuple[str, str, list, list]:
    """(sanitised body HTML, its text, its images, the page's elements it came from) that one rule gives.

    ``per_page``: how many containers the rule matched at authoring (0: any); a
    rule that matched one container then takes the first one now (later matches
    are teaser cards and the like). ``title``: the article's headline, left out
    of the body when the container repeats it. ``text``: the page's text, when called. ``last``:
    nothing reads the page after this rule: its one container is changed in place, not copied.
    """
    elements = []
    if rule.kind in ("css", "xpath"):
        elements = rule.select(doc)
        if per_page == 1:
            elements = elements[:1]
        elif per_page > 1 and len(elements) > 1:  # a split story's blocks stand side by side, not in teasers below
            parent = elements[0].getparent()
            elements = [el for el in elements if el.getparent() is parent]
        if rule.take == "text":
            body_html = sanitize_html("".join(f"<p>{escape(element_text(el))}</p>" for el in elements), url)
        else:  # sanitize_html of the outer HTML, without a re-parse
            copies = elements if last and _changed_in_place(elements) else [_copy(el) for el in elements]
            drop_headline(copies, title)
            drop_comments(copies)
            drop_link_lists(copies)
            body_html = sanitize_elements(copies, url)
    elif rule.kind == "jsonld":
        paragraphs = [p for v in rule.apply(doc, url) for p in v.split("\n") if p.strip()]
        body_html = sanitize_html("".join(f"<p>{escape(p)}</p>" for p in paragraphs), url)
    else:
        html = "".join(rule.with_(take="html").apply(text(), url))
        if html and remove:
            html = _drop_in_fragment(html, remove)
        body_html = sanitize_html(html, url)
    # the sanitised HTML is parsed once for both its text and its images
    root = parse_fragment(body_html)
    if root is None:
        return body_html, html_to_text(body_html), image_urls(body_html), elements
    return body_html, fragment_text(root), element_image_urls(root), elements


def _changed_in_place(elements) -> bool:
    """Whether the one container may be prepared where it is: as its copy would be, for it reads nothing
    outside itself - no <base> (a detached copy cannot be dropped), no <picture> in the two levels above
    (``image_source`` looks two levels up from an image). AMP images become real ones in place."""
    if len(elements) != 1:  # overlapping containers: each must be prepared whole
        return False
    el = elements[0]
    parent = el.getparent()
    if el.tag == "base" or parent is None or parent.tag == "picture" or (
            parent.getparent() is not None and parent.getparent().tag == "picture"):
        return False
    _real_images(el)
    return True


def _copy(el):
    """A detached copy of an element, without its tail, AMP images made real."""
    el = copy.deepcopy(el)
    el.tail = None
    _real_images(el)
    return el


def _real_images(el) -> None:
    """AMP pages write ``<amp-img>``: make them ``<img>`` so the sanitizer keeps them in place."""
    for node in el.iter("amp-img"):
        node.tag = "img"


def _drop_in_fragment(html: str, remove) -> str:
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return html
    drop_removed(root, remove)
    return (root.text or "") + "".join(lxml.html.tostring(c, encoding="unicode") for c in root)


def _meta(doc, prop: str) -> str:
    found = doc.xpath("//meta[@property=$p or @name=$p]/@content", p=prop)
    return found[0].strip() if found else ""


def _describe(rule: Rule) -> str:
    if rule.kind == "markers":
        return f"markers {list(rule.start)!r}..{list(rule.end)!r}"
    return f"{rule.kind} {rule.selector!r}"
