"""Pages x profiles whose extraction outputs are pinned (tests/data/extract_same.json.gz).

``extract`` and the link extraction are rewritten for speed now and then; their outputs must not
move. This module lists the cases - the simulator's and the demo site's pages with their profiles,
the real pages of ../shared/data with the hand-written profiles (benchmarks/profiles), with the
profiles induced from one clicked page (bench_induction's sets, kept in the fixture so that a change
of the induction does not move them) and with a broad profile of chains, content checks, anchors and
remove rules - and one digest per case of everything a user gets (``Article.to_dict()``, the
content hash included; for list pages, the followed links).

    python3 -m tests.extract_corpus --write   # re-pin, from the code as it is now (say why in the commit)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys

from tests.conftest import REPO, SHARED

FIXTURE = REPO / "tests" / "data" / "extract_same.json.gz"

NEWSIM_ARTICLES = 300
SIM_URL = "http://127.0.0.1:8000"
DEMO_URL = "http://127.0.0.1:8765"

# A profile such as a person builds it with the inspector: chains, content checks, anchors, remove rules.
BROAD_PROFILE = {
    "schema": 2, "name": "broad", "start_urls": ["http://example.test/"],
    "fields": {
        "title": {"rules": [{"kind": "css", "selector": "h1", "take": "text", "required": True},
                            {"kind": "css", "selector": "meta[property='og:title']", "take": "attr:content",
                             "post": "^\\s*(.+?)(?:\\s+[|»]\\s+[^|»]{1,30}){0,3}\\s*$"},
                            {"kind": "jsonld", "selector": "headline"}],
                  "expect": {"chars": [12, 300], "words": [2, 50], "digits": 0.3, "punct": 0.2, "per_page": 1,
                             "anchor": "jsonld:headline"}},
        "summary": {"rules": [{"kind": "css", "selector": "meta[name='description']", "take": "attr:content"},
                              {"kind": "jsonld", "selector": "description"}],
                    "expect": {"chars": [30, 600], "words": [5, 120]}},
        "body": {"rules": [{"kind": "css", "selector": "article", "take": "html", "required": True},
                           {"kind": "css", "selector": "[itemprop='articleBody']", "take": "html"},
                           {"kind": "xpath", "selector": "//main", "take": "html"},
                           {"kind": "css", "selector": "div.content p, div.story p", "take": "text"},
                           {"kind": "jsonld", "selector": "articleBody"}],
                 "expect": {"chars": [400, 200000], "words": [60, 40000], "per_page": 1}},
        "author": {"rules": [{"kind": "jsonld", "selector": "author"},
                             {"kind": "css", "selector": "[rel='author'], .author, .byline", "take": "text"}]},
        "date": {"rules": [{"kind": "css", "selector": "time", "take": "attr:datetime"},
                           {"kind": "jsonld", "selector": "datePublished"},
                           {"kind": "css", "selector": "meta[property='article:published_time']",
                            "take": "attr:content"}]},
        "image": {"kind": "css", "selector": "article img", "take": "attr:src"},
    },
    "remove": [{"kind": "css", "selector": "aside, nav, .share, .social, .related, figure.ad, .newsletter"},
               {"kind": "xpath", "selector": "//div[contains(@class, 'promo')]"}],
}


def _digest(value) -> str:
    return hashlib.sha1(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


# --- what moved, readably: each field pinned as it is when short, else by a digest per line ------
SHORT = 200  # characters of a field's JSON kept as they are
PIN = "~lines"  # marks a long field's pin (no Article field is a dict with this key)


def _short_hash(text: str, size: int = 16) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:size]


def _lines(value) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, indent=0)
    return [line.strip() for line in text.splitlines() if line.strip()]


def field_pins(out: dict) -> dict:
    """field -> its value when short, else {PIN: digests of its non-blank lines, "sha": digest of all}."""
    pins = {}
    for name, value in out.items():
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        pins[name] = value if len(text) <= SHORT else \
            {"sha": _short_hash(text), PIN: [_short_hash(line, 6) for line in _lines(value)]}
    return pins


def _clip(text, size: int = 160) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= size else text[: size - 1] + "…"


def moved_fields(pins: dict, out: dict) -> list[str]:
    """One readable entry per field whose value is not the pinned one: the old and new values of a
    short field; for a long one, which of its lines went and the text of those that came."""
    import difflib

    missing = object()
    report = []
    for name in sorted(set(pins) | set(out)):
        old, new = pins.get(name, missing), out.get(name, missing)
        if new is missing or old is missing:
            report.append(f"{name}: {'no longer produced' if new is missing else 'new field ' + _clip(new)}")
            continue
        if not (isinstance(old, dict) and PIN in old):
            if old != new:
                report.append(f"{name}: {_clip(old)} -> {_clip(new)}")
            continue
        if _short_hash(json.dumps(new, ensure_ascii=False, sort_keys=True)) == old["sha"]:
            continue
        lines = _lines(new)
        matcher = difflib.SequenceMatcher(a=old[PIN], b=[_short_hash(line, 6) for line in lines], autojunk=False)
        changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
        parts = []
        for tag, i1, i2, j1, j2 in changes[:4]:
            went = f"{i2 - i1} line(s) from line {i1 + 1} gone" if i2 > i1 else ""
            came = "; now: " + " | ".join(_clip(line, 100) for line in lines[j1:min(j2, j1 + 3)]) if j2 > j1 else ""
            parts.append((went or f"at line {i1 + 1}") + came)
        more = f" (+{len(changes) - 4} more changes)" if len(changes) > 4 else ""
        report.append(f"{name} ({len(old[PIN])} -> {len(lines)} lines): " + "; ".join(parts) + more
                      if parts else f"{name}: same lines, other whitespace")
    return report


def _hash_page(html) -> str:
    return hashlib.sha1(html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _bench(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


# --- the cases: (key, page html (str), url, profile JSON or name) -------------------------------
def simulator_cases():
    """The benchmark simulator's article pages (as it serves them) with benchmarks/newsim_profile.json."""
    if not (SHARED / "bench" / "newsim.py").is_file():
        return [], []
    sys.path.insert(0, str(SHARED / "bench"))
    try:
        from newsim import Site
    finally:
        sys.path.pop(0)
    from xnews_gui.core.text.encoding import decode_html

    site = Site(articles=NEWSIM_ARTICLES)
    profile = "newsim"
    articles = [(f"newsim:{a.path}", decode_html(site.render(a.path)[2])[0], SIM_URL + a.path, profile)
                for a in site.articles[:NEWSIM_ARTICLES]]
    lists = [(f"newsim-list:{p}", decode_html(site.render(p)[2])[0], SIM_URL + p, profile)
             for p in _sim_list_paths(site)]
    return articles, lists


def _sim_list_paths(site) -> list[str]:
    import re

    home = site.render("/")[2].decode("utf-8")
    paths = ["/"] + sorted(set(re.findall(r'href="(/[a-z-]+/)"', home)))[:6]
    first = site.render(paths[1])[2].decode("utf-8")
    more = sorted(set(re.findall(r'href="(/[a-z-]+/trang-\d+\.htm)"', first)))[:2]
    return paths + more


def demo_cases():
    from xnews_gui.demo.site import DemoSite

    site = DemoSite(second_template=True)
    articles = [(f"demo:{a.path}", site.article_page(a), DEMO_URL + a.path, "demo") for a in site.articles]
    lists = [("demo-list:/", site.home(), DEMO_URL + "/", "demo")]
    for slug in sorted({a.path.split("/")[1] for a in site.articles}):
        page = site.category_page(slug, 1)
        if page:
            lists.append((f"demo-list:/{slug}/", page, f"{DEMO_URL}/{slug}/", "demo"))
    return articles, lists


def hand_profile_cases():
    """The real pages of benchmarks/bench_extraction.py with their sites' hand-written profiles."""
    data = SHARED / "data"
    if not data.is_dir():
        return []
    from xnews_gui.core.text.encoding import decode_html

    bench = _bench("bench_extraction")
    out = []
    for site in bench.SITES:
        for page in bench.site_pages(data, site)[0]:
            out.append((f"hand:{site}:{page.name}", decode_html(page.html())[0], page.url, f"hand:{site}"))
    return out


def real_pages():
    """Every real page of the shared data: (name, html)."""
    data = SHARED / "data"
    out = []
    fundus = data / "fundus-parser-test-data" / "test_data"
    for path in sorted(fundus.glob("*/*.html.gz")):
        out.append((f"fundus/{path.parent.name}/{path.name}", gzip.decompress(path.read_bytes())))
    for path in sorted((data / "cleanportaleval" / "input").glob("*.html")):
        out.append((f"cpe/{path.name}", path.read_bytes()))
    for path in sorted((data / "readability-test-pages" / "test-pages").glob("*/source.html")):
        out.append((f"readability/{path.parent.name}", path.read_bytes()))
    return out


def broad_cases():
    """Every real page with BROAD_PROFILE (bytes in: the page's own encoding is read)."""
    return [(f"broad:{name}", html, "http://example.test/" + name.replace("/", "-") + ".html", "broad")
            for name, html in real_pages()]


def induced_cases(profiles: dict):
    """bench_induction's multi-page sets, each page with the profile induced on its site (pinned)."""
    bench = _bench("bench_induction")
    data = SHARED / "data"
    sets = {}
    if (data / "cleanportaleval" / "input").is_dir():
        sets.update(bench.cleanportaleval(data / "cleanportaleval"))
    if (data / "fundus-parser-test-data").is_dir():
        sets.update(bench.fundus(data / "fundus-parser-test-data"))
    if (data / "readability-test-pages").is_dir():
        sets.update(bench.nytimes(data / "readability-test-pages"))
    sets.update(bench.demo())
    out = []
    for site, pages in sets.items():
        if f"induced:{site}" not in profiles:
            continue
        for i, (html, _, _) in enumerate(pages):
            out.append((f"induced:{site}:{i}", html, "http://example.test/page.html", f"induced:{site}"))
    return out


def induce_profiles() -> dict:
    """site -> profile JSON induced as bench_induction does (one clicked page + 3 siblings)."""
    from xnews_gui.core.profile.rules import parse_html
    from xnews_gui.core.induction.selectors import element_xpath, induce_profile

    bench = _bench("bench_induction")
    data = SHARED / "data"
    sets = {}
    sets.update(bench.cleanportaleval(data / "cleanportaleval"))
    sets.update(bench.fundus(data / "fundus-parser-test-data"))
    sets.update(bench.nytimes(data / "readability-test-pages"))
    sets.update(bench.demo())
    out = {}
    for site, pages in sets.items():
        for i, (raw, headline, body) in enumerate(pages):
            doc = parse_html(raw)
            t_el = bench.find_title(doc, headline)
            if t_el is None:
                continue
            b_el = bench.find_body(doc, bench.tokens(body))
            siblings = [p[0] for p in (pages[:i] + pages[i + 1:])[:3]]
            profile = induce_profile({"title": [(raw, element_xpath(t_el))], "body": [(raw, element_xpath(b_el))]},
                                     siblings=siblings, name="bench", start_url="http://example.test/")
            out[f"induced:{site}"] = profile.to_json()
            break
    return out


# --- profiles and outputs ---------------------------------------------------------------------
def load_profiles(induced: dict) -> dict:
    from xnews_gui.core.profile.profile import Profile

    profiles = {"newsim": Profile.from_json((REPO / "benchmarks" / "newsim_profile.json").read_text(encoding="utf-8")),
                "demo": Profile.from_json((REPO / "profiles" / "demo.json").read_text(encoding="utf-8")),
                "broad": Profile.from_dict(BROAD_PROFILE)}
    for path in sorted((REPO / "benchmarks" / "profiles").glob("*.json")):
        profiles[f"hand:{path.stem}"] = Profile.from_json(path.read_text(encoding="utf-8"))
    for name, text in induced.items():
        profiles[name] = Profile.from_json(text)
    return profiles


def article_output(html, url: str, profile) -> dict:
    from xnews_gui.core.extraction.extract import extract

    try:
        return extract(html, url, profile).to_dict()
    except Exception as exc:  # pinned too: a crash that moves is a change
        return {"exception": f"{exc.__class__.__name__}: {exc}"}


def list_output(html, url: str, profile) -> dict:
    """What the crawl's list page gives (``PageParser.list_page``'s link extraction) and ``page_links``."""
    from xnews_gui.core.extraction.links import follow, page_links
    from xnews_gui.core.profile.rules import parse_html

    doc = parse_html(html, url)
    return {"articles": follow(doc, url, profile.articles, profile.allowed_domains, anchors=True),
            "lists": follow(doc, url, profile.lists, profile.allowed_domains, anchors=False),
            "page_links": page_links(profile, html, url)}


def cases(induced: dict, groups=None):
    """(key, kind, html, url, profile name) of every pinned case (``groups``: only these sources,
    of simulator, demo, hand, induced, broad)."""
    def wanted(group):
        return groups is None or group in groups

    out = []
    if wanted("simulator"):
        articles, lists = simulator_cases()
        out += [(k, "article", h, u, p) for k, h, u, p in articles] + [(k, "links", h, u, p) for k, h, u, p in lists]
    if wanted("demo"):
        articles, lists = demo_cases()
        out += [(k, "article", h, u, p) for k, h, u, p in articles] + [(k, "links", h, u, p) for k, h, u, p in lists]
    if wanted("hand"):
        out += [(k, "article", h, u, p) for k, h, u, p in hand_profile_cases()]
    if wanted("induced"):
        out += [(k, "article", h, u, p) for k, h, u, p in induced_cases(induced)]
    if wanted("broad") and (SHARED / "data").is_dir():
        out += [(k, "article", h, u, p) for k, h, u, p in broad_cases()]
    return out


def outputs(induced: dict, groups=None):
    """key -> (page digest, output digest, output) over the cases."""
    profiles = load_profiles(induced)
    result = {}
    for key, kind, html, url, name in cases(induced, groups):
        out = (article_output if kind == "article" else list_output)(html, url, profiles[name])
        result[key] = (_hash_page(html), _digest(out), out)
    return result


def read_fixture() -> dict:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def write_fixture() -> int:
    induced = induce_profiles()
    pinned = {key: [page, digest, field_pins(out)] for key, (page, digest, out) in outputs(induced).items()}
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(FIXTURE, "wb", mtime=0) as fh:
        fh.write(json.dumps({"induced_profiles": induced, "cases": pinned}, sort_keys=True,
                            ensure_ascii=False).encode("utf-8"))
    return len(pinned)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        print(__doc__)
        raise SystemExit(2)
    print(f"{write_fixture()} cases pinned in {FIXTURE.relative_to(REPO)}")
