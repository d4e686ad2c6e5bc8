"""A held-out set that no tuning touched: the fundus publishers bench_layouts never used, each made a site.

Fixed before any tuning on it (the rule, not a list of results):

* **Sites.** Every fundus publisher with fewer than 3 pages (``bench_induction`` and ``bench_layouts`` use
  only those with 3 or more). One page is one template; a publisher with two pages (two template versions)
  gives one site whose every fourth page is in its second template.
* **Pages.** A site has ``PAGES`` article pages: its template carrying other stories. The story's holder
  (the element directly holding most of the gold body's paragraphs) gets another fundus page's paragraphs,
  in the tag and attributes of its first paragraph, where its own stood; the headline element, ``<title>``,
  og:/twitter: titles and JSON-LD (headline, articleBody) get that page's headline and text. A template
  whose holder leaves more than ``OUTSIDE`` of the gold body outside it is not used (its story could not be
  swapped whole), nor is one that shows its story a second time outside the holder (``TWICE`` of its words:
  DailyMaverick prints it again in a "speed read" tab; only one copy would be swapped, so the made page
  would show the template's own story beside the donor's; this rule came after the first runs, when that
  site's lost pages were looked at). Gold title and body of each page: the donor's. The gold must be what one element of the
  page says (as on bench_layouts' pages): a template is used when its own page's best element
  (``find_body``) reaches a token F1 of ``CLEAN`` against its gold body, and a made page is kept when its
  best element reaches ``CLEAN_MADE`` against the donor's (else the next donor is taken, among the first
  ``3 * PAGES``).
* **Layouts.** Each site is measured in ``LAYOUTS_PER_SITE`` of the layouts (the six of bench_layouts and
  the four written for this set only, ``layout_variants.FRESH_VARIANTS``), chosen by the site's place in the
  sorted list, so that every layout gets about as many sites.

The pages of one site share their boilerplate exactly (real sites vary their related-story lists): the
induction's "repeated on every sibling" signals are a little easier here than on real sites.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
from collections import defaultdict
from pathlib import Path

import lxml.html

from layout_variants import (FRESH_VARIANTS, VARIANTS, _story_holder, f1, find_body, find_title, norm_title,
                             normalize_space, text_of, tokens)

PAGES = 8  # 1 clicked, 3 siblings, 4 test pages
OUTSIDE = 0.1  # of the gold body's words, at most, outside the story's holder
TWICE = 0.8  # of the gold body's words outside the holder: the page prints its story twice
LAYOUTS_PER_SITE = 3
CLEAN, CLEAN_MADE = 0.9, 0.85
ALL_LAYOUTS = VARIANTS + FRESH_VARIANTS


def _pages(base: Path) -> dict:
    """publisher -> [(country, html, title, [paragraphs])] in file_to_version order."""
    rows = defaultdict(list)
    for line in (base / "file_to_version.csv").read_text(encoding="utf-8").splitlines()[1:]:
        country, publisher, html_file, version = line.split(",")[:4]
        rows[(country, publisher)].append((html_file, version))
    out = {}
    for (country, publisher), files in rows.items():
        if len(files) >= 3:
            continue  # bench_induction's and bench_layouts' sites
        gold = json.loads((base / "test_data" / country / f"{publisher}.json").read_text(encoding="utf-8"))
        pages = []
        for html_file, version in files:
            entry = gold.get(version, {})
            paragraphs = [normalize_space(p) for s in entry.get("body", {}).get("sections", [])
                          for p in [*(s.get("headline") or []), *s.get("paragraphs", [])] if normalize_space(p)]
            title = normalize_space(entry.get("title") or "")
            if not title or not paragraphs:
                continue
            raw = gzip.decompress((base / "test_data" / country / html_file).read_bytes()).decode("utf-8", "replace")
            pages.append((country, raw, title, paragraphs))
        if pages:
            out[f"fresh:{publisher}"] = pages
    return out


def _story_children(holder, gold) -> list | None:
    """The holder's children that are story (most of their words are the gold body's), or None when the
    holder's own text runs (a story between <br>s) hold some of it."""
    runs = tokens(" ".join([holder.text or ""] + [c.tail or "" for c in holder]))
    if sum((runs & gold).values()) > 0.05 * sum(gold.values()):
        return None
    found = []
    for child in holder:
        if not isinstance(child.tag, str):
            continue
        words = tokens(text_of(child))
        if words and sum((words & gold).values()) >= 0.8 * sum(words.values()):
            found.append(child)
    return found


class Template:
    """One page whose headline and story can be swapped for another story's."""

    def __init__(self, html: str, title: str, paragraphs: list[str]):
        self.ok = False
        doc = lxml.html.document_fromstring(html)
        gold = tokens(" ".join(paragraphs))
        title_el, container = find_title(doc, title), find_body(doc, gold)
        if title_el is None or container is None or len(title) < 12:
            return
        if f1(tokens(text_of(container)), gold) < CLEAN:
            return
        holder = _story_holder(container)
        held = tokens(text_of(holder))
        if sum((held & gold).values()) < (1 - OUTSIDE) * sum(gold.values()):
            return
        children = _story_children(holder, gold)
        if not children or title_el in holder.iter() or _printed_twice(doc, holder, gold):
            return
        self.doc, self.title, self.title_el, self.holder, self.children = doc, title, title_el, holder, children
        self.ok = True

    def page(self, title: str, paragraphs: list[str]) -> str:
        """The template carrying another story (its headline and paragraphs)."""
        doc = copy.deepcopy(self.doc)
        # the copies of the template's elements, found by their place in the tree
        path = self.doc.getroottree().getpath
        title_el = doc.getroottree().xpath(path(self.title_el))[0]
        holder = doc.getroottree().xpath(path(self.holder))[0]
        kids = [holder[self.holder.index(c)] for c in self.children]
        first = kids[0]
        at = holder.index(first)
        for el in kids:
            el.tail = None
            holder.remove(el)
        for i, text in enumerate(paragraphs):
            p = lxml.html.Element(first.tag, dict(first.attrib))
            p.text = text
            p.tail = "\n"
            holder.insert(at + i, p)
        for child in list(title_el):
            title_el.remove(child)
        title_el.text = title
        self._retitle(doc, title, " ".join(paragraphs))
        return lxml.html.tostring(doc, encoding="unicode", doctype="<!DOCTYPE html>")

    def _retitle(self, doc, title: str, body: str) -> None:
        old = self.title
        for el in doc.iter("title"):
            el.text = (el.text or "").replace(old, title) if old in (el.text or "") else title
        for meta in doc.iter("meta"):
            content = meta.get("content") or ""
            if old in content:
                meta.set("content", content.replace(old, title))
        for script in doc.xpath("//script[contains(@type,'ld+json')]"):
            try:
                data = json.loads(script.text or "")
            except ValueError:
                script.drop_tree()
                continue
            script.text = json.dumps(_swap_jsonld(data, old, title, body), ensure_ascii=False)


def _printed_twice(doc, holder, gold) -> bool:
    """The page's visible text outside the story's holder holds the story again."""
    outside = copy.deepcopy(doc)
    outside.getroottree().xpath(doc.getroottree().getpath(holder))[0].drop_tree()
    return sum((tokens(text_of(outside)) & gold).values()) >= TWICE * sum(gold.values())


def _swap_jsonld(data, old: str, title: str, body: str):
    if isinstance(data, list):
        return [_swap_jsonld(d, old, title, body) for d in data]
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key == "articleBody":
                out[key] = body
            elif isinstance(value, str) and norm_title(value) == norm_title(old):
                out[key] = title
            else:
                out[key] = _swap_jsonld(value, old, title, body)
        return out
    return data


def _donors(name: str, country: str, stories: list) -> list:
    """Other publishers' stories for a site: its country's first (same language, mostly), in a fixed order."""
    others = [s for s in stories if s[0] != name]
    key = lambda s: (s[1] != country, hashlib.sha1((name + s[0] + s[2]).encode("utf-8")).hexdigest())  # noqa: E731
    return sorted(others, key=key)


def fresh_sites(data: Path) -> dict:
    """site -> (layouts, [(html, title, body)] of PAGES pages), for every usable fresh publisher."""
    base = data / "fundus-parser-test-data"
    if not (base / "file_to_version.csv").is_file():
        return {}
    return template_sites(_pages(base))


_READABILITY_BLOCKS = ("p", "h2", "h3", "h4", "h5", "li", "pre", "dd")


def readability_sites(data: Path) -> dict:
    """More TUNING data made the same way (never held out): readability's test pages, each case a site
    (nytimes-* are bench_layouts' held-out site), its gold body the blocks of its expected.html."""
    base = data / "readability-test-pages" / "test-pages"
    if not base.is_dir():
        return {}
    publishers = {}
    for case in sorted(base.iterdir()):
        if case.name.startswith("nytimes") or not (case / "expected-metadata.json").is_file():
            continue
        meta = json.loads((case / "expected-metadata.json").read_text(encoding="utf-8"))
        root = lxml.html.fromstring((case / "expected.html").read_text(encoding="utf-8"))
        paragraphs = [normalize_space(text_of(el)) for el in root.iter(*_READABILITY_BLOCKS)
                      if not any(a.tag in _READABILITY_BLOCKS for a in el.iterancestors())]
        paragraphs = [p for p in paragraphs if p]
        title = normalize_space(meta.get("title") or "")
        if title and len(" ".join(paragraphs).split()) >= 80:  # a story, not one of readability's test snippets
            html = (case / "source.html").read_text(encoding="utf-8", errors="replace")
            publishers[f"tune:{case.name}"] = [("readability", html, title, paragraphs)]
    return template_sites(publishers)


def template_sites(publishers: dict) -> dict:
    """publisher -> [(group, html, title, paragraphs)] made into sites of PAGES pages (see the module's note)."""
    stories = [(site, country, title, paras) for site, pages in publishers.items()
               for country, _, title, paras in pages]
    out = {}
    for k, site in enumerate(sorted(publishers)):
        pages = publishers[site]
        templates = [Template(html, title, paras) for _, html, title, paras in pages]
        if not templates[0].ok:
            continue
        second = templates[1] if len(templates) > 1 and templates[1].ok else None
        made = []
        for _, _, title, paras in _donors(site, pages[0][0], stories)[:3 * PAGES]:
            template = second if second is not None and len(made) % 4 == 3 else templates[0]
            html, body = template.page(title, paras), " ".join(paras)
            best = find_body(lxml.html.document_fromstring(html), tokens(body))
            if best is not None and f1(tokens(text_of(best)), tokens(body)) >= CLEAN_MADE:
                made.append((html, title, body))
            if len(made) == PAGES:
                break
        if len(made) < PAGES:
            continue
        layouts = [ALL_LAYOUTS[(k + 3 * j) % len(ALL_LAYOUTS)] for j in range(LAYOUTS_PER_SITE)]
        out[site] = (layouts, made)
    return out
