"""Field accuracy of hand-written profiles on real pages (not a test: a measurement).

    python benchmarks/bench_extraction.py [--verbose] [--data ../shared/data]
    python benchmarks/bench_extraction.py --speed     # CPU per page instead (see ``speed``)

Each profile in ``benchmarks/profiles/`` was written by hand after inspecting ONE page of its
site (the oldest fundus page, or page 1 of a cleanportaleval site). It is then applied with
``xnews_gui.core.extraction.extract.extract`` to every page of that site, so a later template change shows up
as a drop in the scores of the later pages.

Scores per page:
  title     exact match after whitespace, Unicode (NFC) and typographic-quote normalisation
            (the CleanEval gold standard writes ' for the pages' curly quotes)
  summary   exact match and token F1 (only where the ground truth has a lede)
  body      token F1 (bag of lower-cased words) of lede + body text against the ground truth:
            fundus ``body.summary`` + ``body.sections[].paragraphs``; cleanportaleval the
            GoldStandard text without its tags and without the first <h> block (the headline)
  images    recall of the fundus ground-truth images among the page's main image + body images,
            compared by host + path (query strings carry sizes and signatures)
  date      the date rule gave a value that parses to ISO 8601 (fundus: and the day matches)
  ok        no required field missing

The publishers' HTML stays in ``../shared/data``; nothing is copied into the repository.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import html as htmllib
import json
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from xnews_gui.core.extraction.extract import Article, extract  # noqa: E402
from xnews_gui.core.profile.profile import Profile  # noqa: E402
from xnews_gui.core.versions import versions_line  # noqa: E402

PROFILES = Path(__file__).resolve().parent / "profiles"
DEFAULT_DATA = REPO / ".." / "shared" / "data"

# site -> (dataset, profile file, fundus publisher or cleanportaleval file prefixes)
SITES = {
    "br.de": ("fundus", "br.de.json", "BR"),
    "dw.com": ("fundus", "dw.com.json", "DW"),
    "faz.net": ("fundus", "faz.net.json", "FAZ"),
    "hankookilbo.com": ("fundus", "hankookilbo.com.json", "HankookIlbo"),
    "mirror.co.uk": ("fundus", "mirror.co.uk.json", "TheMirror"),
    "vnexpress.net": ("fundus", "vnexpress.net.json", "VnExpress"),
    "bbc.co.uk": ("cpe", "bbc.co.uk.json", ("bbc.co.uk_news_",)),
    "blogs.wsj.com": ("cpe", "blogs.wsj.com.json", ("blogs.wsj.com_brussels_",)),
    "tv.msnbc.com": ("cpe", "tv.msnbc.com.json", ("tv.msnbc.com_news_",)),
    "washingtonpost.com": ("cpe", "washingtonpost.com.json", ("washingtonpost.com_blog1_", "washingtonpost.com_blog2_")),
}


# --- ground truth --------------------------------------------------------------------
@dataclass
class Page:
    site: str
    name: str
    path: Path
    url: str
    authoring: bool  # the page the profile was written on
    title: str = ""
    summary: str = ""
    body: str = ""
    authors: list = field(default_factory=list)
    date: str = ""
    images: list = field(default_factory=list)  # one list of candidate URLs per image

    def html(self) -> bytes:
        data = self.path.read_bytes()
        return gzip.decompress(data) if self.path.suffix == ".gz" else data


def fundus_pages(data: Path, site: str, publisher: str) -> list[Page]:
    root = data / "fundus-parser-test-data"
    rows = [r for r in csv.DictReader((root / "file_to_version.csv").open(encoding="utf-8"))
            if r["publisher"] == publisher]
    rows.sort(key=lambda r: r["html_file"])  # <Publisher>_<yyyy_mm_dd>: oldest first
    pages = []
    for i, r in enumerate(rows):
        folder = root / "test_data" / r["country"]
        truth = json.loads((folder / f"{publisher}.json").read_text(encoding="utf-8"))[r["json_version_key"]]
        body = truth.get("body") or {}
        lede = [p for p in body.get("summary", []) if p.strip()]
        paragraphs = [p for s in body.get("sections", []) for p in s.get("paragraphs", [])]
        pages.append(Page(
            site=site, name=r["html_file"].removesuffix(".html.gz"), path=folder / r["html_file"], url=r["url"],
            authoring=(i == 0), title=truth.get("title", ""), summary=" ".join(lede),
            body="\n".join(lede + paragraphs), authors=list(truth.get("authors") or []),
            date=truth.get("publishing_date") or "",
            images=[[v["url"] for v in img.get("versions", [])] for img in truth.get("images", [])],
        ))
    return pages


_GS_BLOCK = re.compile(r"<([hpl])>", re.I)


def cleaneval_truth(text: str) -> tuple[str, str, list[str]]:
    """(URL, headline, other blocks) of a CleanEval GoldStandard file."""
    url = ""
    m = re.search(r"^\s*URL:\s*(\S+)", text, re.M)
    if m:
        url = m.group(1)
    parts = _GS_BLOCK.split(text)
    blocks = [(parts[i].lower(), norm(htmllib.unescape(parts[i + 1]))) for i in range(1, len(parts) - 1, 2)]
    blocks = [(kind, b) for kind, b in blocks if b]
    title = ""
    if blocks and blocks[0][0] == "h":
        title = blocks.pop(0)[1]
    return url, title, [b for _, b in blocks]


def cpe_pages(data: Path, site: str, prefixes) -> tuple[list[Page], int]:
    root = data / "cleanportaleval"
    files = sorted(p for p in (root / "input").glob("*.html") if p.name.startswith(tuple(prefixes)))
    files.sort(key=lambda p: (p.name.rsplit("_", 1)[0], int(re.sub(r"\D", "", p.stem.rsplit("_", 1)[1]) or 0)))
    pages, skipped = [], 0
    for p in files:
        gold = root / "GoldStandard" / (p.stem + ".txt")
        url, title, blocks = cleaneval_truth(gold.read_text(encoding="utf-8", errors="replace")) if gold.exists() else ("", "", [])
        if not blocks:  # section front pages: the gold standard is empty
            skipped += 1
            continue
        pages.append(Page(site=site, name=p.stem, path=p, url=url or f"http://{site}/{p.stem}",
                          authoring=not pages, title=title, body="\n".join(blocks)))
    return pages, skipped


def site_pages(data: Path, site: str) -> tuple[list[Page], int]:
    kind, _, what = SITES[site]
    if kind == "fundus":
        return fundus_pages(data, site, what), 0
    return cpe_pages(data, site, what)


def load_profile(site: str) -> Profile:
    return Profile.from_json((PROFILES / SITES[site][1]).read_text(encoding="utf-8"))


# --- scoring ---------------------------------------------------------------------------
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text or "")).strip()


def tokens(text: str) -> Counter:
    text = unicodedata.normalize("NFC", text or "").translate(_QUOTES).lower()
    return Counter(re.findall(r"\w+", text))


def f1(predicted: str, truth: str) -> float:
    p, t = tokens(predicted), tokens(truth)
    if not p and not t:
        return 1.0
    common = sum((p & t).values())
    if not common:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(t.values())
    return 2 * precision * recall / (precision + recall)


def _image_key(url: str) -> str:
    parts = urlsplit(url)
    return (parts.hostname or "").lower() + parts.path


def image_recall(article: Article, truth: list[list[str]]) -> float | None:
    if not truth:
        return None
    found = {_image_key(u) for u in [article.image, *article.images] if u}
    hits = sum(1 for versions in truth if any(_image_key(v) in found for v in versions))
    return hits / len(truth)


@dataclass
class Score:
    page: Page
    article: Article
    title: bool
    summary_exact: bool | None
    summary_f1: float | None
    body_f1: float
    images: float | None
    date_parsed: bool
    date_right: bool | None
    author: bool | None


def score(page: Page, article: Article) -> Score:
    body_pred = article.body_text
    if article.summary and norm(article.summary) not in norm(body_pred):
        body_pred = article.summary + "\n" + body_pred
    date_parsed = bool(re.match(r"^\d{4}-\d{2}-\d{2}", article.date or ""))
    date_right = None
    if page.date:
        date_right = date_parsed and article.date[:10] == page.date[:10]
    author = None
    if page.authors:
        author = bool(article.author) and all(norm(a) in norm(article.author) for a in page.authors[:1])
    return Score(
        page=page, article=article,
        title=bool(page.title) and norm(article.title).translate(_QUOTES) == norm(page.title).translate(_QUOTES),
        summary_exact=(norm(article.summary) == norm(page.summary)) if page.summary else None,
        summary_f1=f1(article.summary, page.summary) if page.summary else None,
        body_f1=f1(body_pred, page.body),
        images=image_recall(article, page.images),
        date_parsed=date_parsed, date_right=date_right, author=author,
    )


def run_site(data: Path, site: str) -> tuple[list[Score], int]:
    profile = load_profile(site)
    pages, skipped = site_pages(data, site)
    scores = []
    for page in pages:
        article = extract(page.html(), page.url, profile)
        scores.append(score(page, article))
    return scores, skipped


# --- report ----------------------------------------------------------------------------
def _mean(values) -> float | None:
    values = [float(v) for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _pct(value) -> str:
    return "   -" if value is None else f"{100 * value:4.0f}"


COLUMNS = ("site", "pages", "ok", "title", "sum=", "sumF1", "bodyF1", "bF1 auth", "bF1 rest", "img", "date", "date=", "author")


def summarise(label: str, scores: list[Score], skipped: int = 0) -> list[str]:
    rest = [s for s in scores if not s.page.authoring]
    auth = [s for s in scores if s.page.authoring]
    return [
        label, f"{len(scores)}" + (f"(+{skipped})" if skipped else ""),
        _pct(_mean(s.article.ok for s in scores)),
        _pct(_mean(s.title for s in scores)),
        _pct(_mean(s.summary_exact for s in scores)),
        _pct(_mean(s.summary_f1 for s in scores)),
        _pct(_mean(s.body_f1 for s in scores)),
        _pct(_mean(s.body_f1 for s in auth)),
        _pct(_mean(s.body_f1 for s in rest)),
        _pct(_mean(s.images for s in scores)),
        _pct(_mean(s.date_parsed for s in scores)),
        _pct(_mean(s.date_right for s in scores)),
        _pct(_mean(s.author for s in scores)),
    ]


def table(rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- speed ------------------------------------------------------------------------------
def speed(data: Path, articles: int, rounds: int) -> None:
    """CPU milliseconds per page (best of ``rounds``), in-process, of what the crawl does per article:
    ``extract`` on the newsim simulator's article pages with benchmarks/newsim_profile.json (str in,
    as the crawl passes it) and on the real pages with their hand-written profiles; then the text
    normalisation of each newsim article for the topic classifier (``phrases``) and for near-duplicate
    shingles (``normalize``). A detail beside bench_crawl.py (the CLI as users run it), not instead."""
    import time

    from xnews_gui.core.text.encoding import decode_html
    from xnews_gui.core.text.text import normalize, phrases

    sys.path.insert(0, str(REPO / ".." / "shared" / "bench"))
    from newsim import Site  # noqa: E402 - the simulator lives beside the data, not in the repo

    site = Site(articles=max(articles, 1))
    newsim = Profile.from_json((REPO / "benchmarks" / "newsim_profile.json").read_text(encoding="utf-8"))
    sim = [("http://127.0.0.1:8000" + a.path, site.render(a.path)[2].decode("utf-8"), newsim)
           for a in site.articles[:articles]]
    real = [(p.url, decode_html(p.html())[0], load_profile(s)) for s in SITES for p in site_pages(data, s)[0]]
    texts = [a.title + "\n" + a.summary + "\n" + a.body_text for a in (extract(h, u, p) for u, h, p in sim)]

    def best(work, items) -> float:
        times = []
        for _ in range(rounds):
            started = time.process_time()
            for item in items:
                work(item)
            times.append(time.process_time() - started)
        return 1000 * min(times) / len(items)

    print(f"CPU ms per page, best of {rounds} (in-process)")
    rows = [(f"extract, newsim article pages ({len(sim)})", best(lambda i: extract(i[1], i[0], i[2]), sim)),
            (f"extract, real pages with hand profiles ({len(real)})", best(lambda i: extract(i[1], i[0], i[2]), real)),
            ("phrases (topic classifier), per newsim article", best(phrases, texts)),
            ("normalize (near-duplicates), per newsim article", best(normalize, texts))]
    for label, ms in rows:
        print(f"  {label:<50} {ms:6.3f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (default ../shared/data)")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per page")
    ap.add_argument("--speed", action="store_true", help="CPU ms per page instead of accuracy")
    ap.add_argument("--articles", type=int, default=400, help="--speed: newsim article pages (default 400)")
    ap.add_argument("--rounds", type=int, default=5, help="--speed: best of this many rounds (default 5)")
    ap.add_argument("sites", nargs="*", help=f"only these sites ({', '.join(SITES)})")
    args = ap.parse_args(argv)
    print(versions_line(), flush=True)  # what the figures were made with
    if not args.data.is_dir():
        print(f"error: shared data folder not found: {args.data}", file=sys.stderr)
        return 2
    if args.speed:
        speed(args.data, args.articles, args.rounds)
        return 0
    rows, everything, details = [list(COLUMNS)], [], []
    groups = {"fundus": [], "cpe": []}
    for site in args.sites or SITES:
        scores, skipped = run_site(args.data, site)
        everything += scores
        groups[SITES[site][0]] += scores
        rows.append(summarise(site, scores, skipped))
        for s in scores:
            details.append([
                ("* " if s.page.authoring else "  ") + s.page.name, "", "ok" if s.article.ok else "FAIL",
                "yes" if s.title else "no", {True: "yes", False: "no", None: "-"}[s.summary_exact],
                _pct(s.summary_f1), _pct(s.body_f1), "", "", _pct(s.images),
                "yes" if s.date_parsed else "no", {True: "yes", False: "no", None: "-"}[s.date_right],
                {True: "yes", False: "no", None: "-"}[s.author],
            ])
    for name, label in (("fundus", "ALL fundus"), ("cpe", "ALL cleanportaleval")):
        if groups[name]:
            rows.append(summarise(label, groups[name]))
    rows.append(summarise("ALL", everything))
    print(table(rows))
    print("\npercentages; 'auth' = the page each profile was written on, 'rest' = the other pages of the site;"
          "\n(+n) = pages skipped because their gold standard is empty; '-' = no ground truth for that field")
    if args.verbose:
        print()
        print(table([["page (* = authoring)", "", "ok", "title", "sum=", "sumF1", "bodyF1", "", "", "img", "date", "date=", "author"]] + details))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
