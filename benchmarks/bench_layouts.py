"""Complete titles and bodies on every layout, or a clear flag: profiles made by one click, on layouts
without classes, with split stories, in 2005 tables and with second templates (not a test: a measurement).

The sites of ``bench_induction`` (CleanPortalEval, the fundus publishers with several template versions,
readability's nytimes pages, the demo site's two layouts) are rewritten into the layouts of
``layout_variants`` (orig, classless, split, split-classless, table, mixed), every page of a site the same
way, the text kept so the gold title and body stay true. Per site and layout, as the held-out check of the
issue: one page is clicked, 3 unlabeled sibling pages go to ``induce_profile``, the profile is applied with
``extract()`` to the site's other pages (at most 6; sites of 3-4 pages, one per template version: each page
in turn is the test page). Two kinds of body click: the element that best covers the story, and a
newcomer's click on the first paragraph of its text. trafilatura with no rules at all runs beside it.

  titles exact   extracted title == gold headline (whitespace, quotes and dashes normalised)
  body F1        token F1 of the body text against the gold body (median, mean)
  lost           pages whose body F1 < 0.5
  bad unflagged  pages whose body F1 < 0.8 (title: not exact) and the article says nothing about it: no
                 ``errors`` entry of the field, ``checks[field]`` empty, no ``fallbacks`` entry of the field
  good flagged   pages whose body F1 >= 0.95 that are flagged all the same (false alarms)
  no title/body  induced profiles without a title or a body field (or induce_profile failed)

Sites are split ONCE into a tuning part and a held-out part by a hash of the site's name (``held_out``);
only the tuning part's failures can be printed (``--failures``). The held-out part was looked at while
issue 24 was built (its totals once, one of its sites while tuning), so a third part, ``fresh``, was fixed
before any later tuning and is never tuned on: the fundus publishers no other part uses, each page's
template carrying other pages' stories (``fresh_sites``), in the six layouts above and four more written
for it alone (``layout_variants.FRESH_VARIANTS``: the story in five blocks, paragraphs as <div>s with
<br>s, the headline in a table cell, related-story lists inside the story), three layouts per site. Its
failures are never printed; its four new layouts are also reported on their own. Six of its sites have been
looked at since: fresh:MainichiShimbun (its lost pages showed the teaser cards ``body_clean`` now drops),
fresh:DerFreitag (a body's sizes learned before the remove rules ran), fresh:BerlinerZeitung,
fresh:SankeiShimbun and fresh:TechCrunch (one profile each, checking that change and the form guard),
fresh:DailyMaverick (its made pages hid the donor's story in a speed-reading tab while the template's own
story showed: ``fresh_sites`` now leaves out a template that prints its story twice, which drops it and
fresh:DerFreitag, 83 publishers left); and the counts of lost, unflagged and flagged pages by site, not their text, were printed for all. The other 79
publishers stay unseen. ``tuning-extra`` is
more tuning data made the same way from readability's test pages (``fresh_sites.readability_sites``).

    python benchmarks/bench_layouts.py [--data ../shared/data] [--code OTHER_CHECKOUT] [--failures]
                                       [--parts tuning,tuning-extra,held-out,fresh] [--variants ...]

``--code`` runs another checkout's ``xnews_gui`` (e.g. main, for the before/after table).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def held_out(site: str) -> bool:
    """Fixed before any tuning: about half of the sites, by the second hex digit of the name's SHA-1."""
    return hashlib.sha1(site.encode("utf-8")).hexdigest()[1] in "89abcdef"


BAD, GOOD, LOST = 0.8, 0.95, 0.5
KINDS = ("container", "paragraph")
NEW_ONLY = "fresh (its four new layouts only)"


def _flagged(art, name: str) -> bool:
    return (any(e.startswith(name + ":") for e in art.errors) or bool(art.checks.get(name))
            or any(f.startswith(name + ":") for f in art.fallbacks))


def _trafilatura(html: str, cache: dict) -> tuple[str, str]:
    key = hashlib.sha1(html.encode("utf-8", "surrogatepass")).hexdigest()
    if key not in cache:
        import trafilatura

        out = trafilatura.extract(html, output_format="json", with_metadata=True, include_comments=False)
        data = json.loads(out) if out else {}
        cache[key] = (data.get("title") or "", data.get("text") or "")
    return cache[key]


class Tally:
    def __init__(self) -> None:
        self.titles, self.f1s = [], []
        self.bad_unflagged = self.bad_titles_unflagged = self.good_flagged = 0
        self.profiles = self.profiles_missing = 0

    def add(self, title_ok: bool, f1: float, body_flag: bool | None, title_flag: bool | None) -> None:
        self.titles.append(title_ok)
        self.f1s.append(f1)
        if body_flag is None:
            return
        self.bad_unflagged += f1 < BAD and not body_flag
        self.good_flagged += f1 >= GOOD and body_flag
        self.bad_titles_unflagged += (not title_ok) and not title_flag

    def merge(self, other: "Tally") -> None:
        for key, value in vars(other).items():
            setattr(self, key, getattr(self, key) + value)

    def row(self, label: str, rules: bool = True) -> str:
        n = len(self.f1s)
        if not n:
            return f"| {label} | 0 |"
        lost = sum(f < LOST for f in self.f1s)
        cells = [label, str(n), f"{sum(self.titles) / n:.1%}", f"{statistics.median(self.f1s):.3f}",
                 f"{statistics.mean(self.f1s):.3f}", f"{lost / n:.1%} ({lost})"]
        if rules:
            cells += [str(self.bad_unflagged), str(self.bad_titles_unflagged), str(self.good_flagged),
                      f"{self.profiles_missing} of {self.profiles}"]
        else:
            cells += ["—"] * 4
        return "| " + " | ".join(cells) + " |"


HEADER = ("| on the same pages | pages | titles exact | body F1 median | body F1 mean | body lost (F1<0.5) | "
          "bad bodies unflagged | bad titles unflagged | good bodies flagged | profiles without title/body |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def plans(pages: list) -> list:
    """[(clicked, siblings, tests)] as in bench_induction: 5+ pages -> the first clickable page, 3 siblings,
    at most 6 tests; 3-4 pages (template versions) -> each page in turn is the test page."""
    from layout_variants import find_first_paragraph, find_title

    import lxml.html

    def clickable(p):
        doc = lxml.html.document_fromstring(p[0])
        return find_title(doc, p[1]) is not None and find_first_paragraph(doc, p[2], p[1]) is not None

    if len(pages) >= 5:
        for i, page in enumerate(pages):
            if clickable(page):
                rest = pages[:i] + pages[i + 1:]
                return [(page, rest[:3], rest[3:9])]
        return []
    out = []
    for j, test in enumerate(pages):
        others = pages[:j] + pages[j + 1:]
        ok = [p for p in others if clickable(p)]
        if ok:
            out.append((ok[0], [p for p in others if p is not ok[0]], [test]))
    return out


def run_variant(pages: list, tallies: dict, cache: dict, failures: list | None, label: str) -> None:
    from layout_variants import f1, find_body, find_first_paragraph, find_title, norm_title, tokens

    import lxml.html
    try:  # core by job; a checkout from before (--code) has these modules flat in core/
        from xnews_gui.core.extraction.extract import extract
        from xnews_gui.core.induction.selectors import element_xpath, induce_profile
    except ModuleNotFoundError:
        from xnews_gui.core.extract import extract
        from xnews_gui.core.selectors import element_xpath, induce_profile

    for clicked, siblings, tests in plans(pages):
        raw, headline, body = clicked
        doc = lxml.html.document_fromstring(raw)
        gold_c = tokens(body)
        title_xp = element_xpath(find_title(doc, headline))
        bodies = {"container": find_body(doc, gold_c), "paragraph": find_first_paragraph(doc, body, headline)}
        for kind in KINDS:
            tally = tallies[kind]
            tally.profiles += 1
            try:
                profile = induce_profile({"title": [(raw, title_xp)], "body": [(raw, element_xpath(bodies[kind]))]},
                                         siblings=[s[0] for s in siblings], name="bench",
                                         start_url="http://example.test/")
                missing = "title" not in profile.fields or "body" not in profile.fields
            except Exception as exc:  # the product could not make a profile: every test page is lost
                profile, missing = None, True
                if failures is not None:
                    failures.append(f"  {label} {kind}: induce_profile failed: {type(exc).__name__}: {exc}")
            tally.profiles_missing += missing
            for html, want_title, want_body in tests:
                gold = tokens(want_body)
                if profile is None:
                    tally.add(False, 0.0, False, False)
                    continue
                art = extract(html, "http://example.test/story.html", profile)
                score = f1(tokens(art.body_text), gold)
                title_ok = norm_title(art.title) == norm_title(want_title)
                tally.add(title_ok, score, _flagged(art, "body"), _flagged(art, "title"))
                if failures is not None and (score < 0.95 or not title_ok):
                    _note(failures, label, kind, art, profile, score, title_ok, want_title, gold)
        for html, want_title, want_body in tests:
            title, text = _trafilatura(html, cache)
            tallies["trafilatura"].add(norm_title(title) == norm_title(want_title), f1(tokens(text), tokens(want_body)),
                                       None, None)


def _note(failures, label, kind, art, profile, score, title_ok, want_title, gold) -> None:
    from layout_variants import tokens

    pred = tokens(art.body_text)
    common = sum((pred & gold).values())
    prec, rec = common / max(1, sum(pred.values())), common / max(1, sum(gold.values()))
    flags = [e for e in art.errors] + [f"checks.{k}={v}" for k, v in art.checks.items() if v] + art.fallbacks
    if not title_ok:
        failures.append(f"  {label} {kind}: title {art.title[:80]!r} want {want_title[:80]!r} "
                        f"rules {[r.selector for r in profile.rules_for('title')][:3]}")
    if score < 0.95:
        failures.append(f"  {label} {kind}: body F1 {score:.3f} P {prec:.2f} R {rec:.2f} "
                        f"rules {[r.selector[:60] for r in profile.rules_for('body')][:3]} flags {flags[:3]}")


def load_sites(data: Path) -> dict:
    import bench_induction as bi

    sites: dict = {}
    if (data / "cleanportaleval" / "input").is_dir():
        sites.update(bi.cleanportaleval(data / "cleanportaleval"))
    if (data / "fundus-parser-test-data").is_dir():
        sites.update(bi.fundus(data / "fundus-parser-test-data"))
    if (data / "readability-test-pages").is_dir():
        sites.update(bi.nytimes(data / "readability-test-pages"))
    sites.update(bi.demo())
    return {site: pages[:10] for site, pages in sites.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose xnews_gui is measured")
    ap.add_argument("--failures", action="store_true", help="print the tuning part's failing pages")
    ap.add_argument("--variants", default="", help="comma-separated layouts (default: all)")
    ap.add_argument("--parts", default="tuning,tuning-extra,held-out,fresh", help="comma-separated parts to run")
    ap.add_argument("--per-layout", default="tuning,tuning-extra",
                    help="the parts whose per-layout figures are printed (comma-separated)")
    args = ap.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    sys.path.insert(1, str(HERE))
    import xnews_gui  # noqa: F401  (from --code, before bench_induction puts this checkout first)
    from fresh_sites import fresh_sites, readability_sites
    from layout_variants import FRESH_VARIANTS, VARIANTS, make_variant, tokens

    variants = [v for v in (args.variants.split(",") if args.variants else VARIANTS)]
    wanted = set(args.parts.split(","))
    sites = load_sites(args.data.resolve()) if wanted & {"tuning", "held-out"} else {}
    fresh = fresh_sites(args.data.resolve()) if "fresh" in wanted else {}
    extra = readability_sites(args.data.resolve()) if "tuning-extra" in wanted else {}
    started = time.perf_counter()
    parts = {p: defaultdict(Tally) for p in ("tuning", "tuning-extra", "held-out", "fresh") if p in wanted}
    if "fresh" in parts:
        parts[NEW_ONLY] = defaultdict(Tally)
    by_layout = {part: defaultdict(lambda: defaultdict(Tally)) for part in parts}
    cache: dict = {}
    runs = []  # (part, site, layouts, pages)
    for site, pages in sites.items():
        part = "held-out" if held_out(site) else "tuning"
        if part in parts:
            runs.append((part, site, variants, pages))
    for part, made_sites in (("tuning-extra", extra), ("fresh", fresh)):
        for site, (layouts, pages) in made_sites.items():
            runs.append((part, site, [v for v in layouts if not args.variants or v in variants], pages))
    for part in parts:
        print(f"{part} part: ", ", ".join(site for p, site, _, _ in runs if p == part))
    for part, site, layouts, pages in runs:
        for variant in layouts:
            if variant == "mixed" and len(pages) < 5:
                continue  # sites of 3-4 pages are one page per template version already
            made = []
            for i, (html, title, body) in enumerate(pages):
                html = make_variant(variant, html, title, tokens(body), i)
                if html is not None:
                    made.append((html, title, body))
            if len(made) < 3:
                continue
            failures = [] if args.failures and part.startswith("tuning") else None
            tallies = defaultdict(Tally)
            run_variant(made, tallies, cache, failures, f"{site} [{variant}]")
            for key, tally in tallies.items():
                parts[part][key].merge(tally)
                if part == "fresh" and variant in FRESH_VARIANTS:
                    parts[NEW_ONLY][key].merge(tally)
                by_layout[part][variant][key].merge(tally)
            for line in failures or ():
                print(line)
    code = args.code.resolve()
    rev = ""
    try:
        import subprocess

        rev = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    print(f"\nxnews_gui of {code.name} ({rev}); layouts: {', '.join(variants)}")
    for part, tallies in parts.items():
        print(f"\n{part}" + ("" if part == NEW_ONLY else " part"))
        print(HEADER)
        print(tallies["container"].row("XNews, container click"))
        print(tallies["paragraph"].row("XNews, first-paragraph click"))
        print(tallies["trafilatura"].row("trafilatura, no rules at all", rules=False))
    for shown in (p for p in args.per_layout.split(",") if p in by_layout):  # never a held-out part by default
        print(f"\nper layout, {shown} part (lost pages / mean body F1 / titles exact): container | paragraph | "
              "trafilatura")
        for variant in by_layout[shown]:
            cells = []
            for key in ("container", "paragraph", "trafilatura"):
                t = by_layout[shown][variant][key]
                if t.f1s:
                    lost = sum(f < LOST for f in t.f1s)
                    titles = sum(t.titles) / len(t.titles)
                    cells.append(f"{lost:2}/{len(t.f1s):3} {statistics.mean(t.f1s):.3f} {titles:6.1%}")
            print(f"  {variant:16} " + " | ".join(cells))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
