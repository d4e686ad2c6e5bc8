"""Rules from ONE clicked page (+3 unlabeled siblings) measured on the site's OTHER pages, side by side.

For every multi-page set in ../shared/data - CleanPortalEval's sites, the fundus publishers with several
template versions, readability's nytimes pages - and the demo site with its second template, the click is
simulated the way a person would do it: on the authoring page, the element whose text is the gold headline
(title) and the element whose text best matches the gold body (body). Then, in one run:

  xnews      induce_profile(clicks, siblings=3 unlabeled pages) -> extract() on the other pages
  induce()   the single-page induce() of earlier XNews versions (best rule per field)
  copyxpath  the browser's "Copy XPath" of the clicked elements (absolute, positional)
  trafilatura  no clicks at all (title from its metadata)

  title  exact-title rate: extracted == gold headline (whitespace, quotes and dashes normalised)
  body   token F1 of the extracted body text against the gold body (median over test pages)

Sites with 5+ pages: page 1 clicked, pages 2-4 siblings, the rest are test pages. Sites with 3-4 pages
(fundus: one page per template version): each page in turn is the test page, the first other page is
clicked, the remaining ones are the siblings. ``--holdout`` lists the sites not looked at while tuning.

    python benchmarks/bench_induction.py [--data ../shared/data] [--only cleanportaleval,fundus,nytimes,demo]
"""

from __future__ import annotations

import argparse
import gzip
import html as htmlmod
import json
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

try:  # core by job; a checkout from before (bench_layouts --code) has these modules flat in core/
    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.induction.selectors import element_xpath, induce, induce_profile
    from xnews_gui.core.profile.rules import Rule, element_text, parse_html
    from xnews_gui.core.text.text import normalize_space
except ModuleNotFoundError:
    from xnews_gui.core.extract import extract
    from xnews_gui.core.rules import Rule, element_text, normalize_space, parse_html
    from xnews_gui.core.selectors import element_xpath, induce, induce_profile

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout_variants import f1, find_body, find_title, norm_title, tokens  # noqa: E402  (the simulated clicks)

# sites whose pages were looked at while tuning induce_profile; every other site is held out
TUNED_ON = {"cleanportaleval:bbc.co.uk_news", "demo:demo-two-templates", "fundus:SeznamZpravy", "fundus:NTV",
            "fundus:DW", "fundus:BSZ", "fundus:WAZ", "fundus:TheMirror", "fundus:HankookIlbo", "readability:nytimes"}


# --- data sets: site -> [(html, gold title, gold body text)] ------------------------------
def cleanportaleval(base: Path) -> dict:
    out = defaultdict(list)
    for f in sorted((base / "input").glob("*.html")):
        text = (base / "GoldStandard" / f"{f.stem}.txt").read_text(encoding="utf-8", errors="replace")
        blocks = re.split(r"<(h|p|l)>", text)
        pairs = [(blocks[i], normalize_space(htmlmod.unescape(blocks[i + 1]))) for i in range(1, len(blocks) - 1, 2)]
        headline = next((b for t, b in pairs if t == "h"), "")
        body = " ".join(b for t, b in pairs if b != headline)
        if headline and body:
            out[f"cleanportaleval:{f.stem.rsplit('_', 1)[0]}"].append(
                (f.read_text(encoding="utf-8", errors="replace"), headline, body))
    return out


def fundus(base: Path) -> dict:
    rows = defaultdict(list)
    for line in (base / "file_to_version.csv").read_text(encoding="utf-8").splitlines()[1:]:
        country, publisher, html_file, version = line.split(",")[:4]
        rows[(country, publisher)].append((html_file, version))
    out = {}
    for (country, publisher), files in rows.items():
        if len(files) < 3:
            continue
        gold = json.loads((base / "test_data" / country / f"{publisher}.json").read_text(encoding="utf-8"))
        pages = []
        for html_file, version in files:
            entry = gold.get(version, {})
            body = " ".join(h + " " + " ".join(s.get("paragraphs", []))
                            for s in entry.get("body", {}).get("sections", []) for h in (s.get("headline") or [""]))
            raw = gzip.decompress((base / "test_data" / country / html_file).read_bytes()).decode("utf-8", "replace")
            if entry.get("title") and body.strip():
                pages.append((raw, normalize_space(entry["title"]), normalize_space(body)))
        if len(pages) >= 3:
            out[f"fundus:{publisher}"] = pages
    return out


def nytimes(base: Path) -> dict:
    pages = []
    for case in sorted((base / "test-pages").glob("nytimes-*")):
        meta = json.loads((case / "expected-metadata.json").read_text(encoding="utf-8"))
        body = element_text(parse_html((case / "expected.html").read_text(encoding="utf-8")))
        pages.append(((case / "source.html").read_text(encoding="utf-8", errors="replace"),
                      normalize_space(meta.get("title", "")), body))
    return {"readability:nytimes": pages} if len(pages) >= 3 else {}


def demo() -> dict:
    from xnews_gui.demo.site import DemoSite

    site = DemoSite(second_template=True)
    articles = site.articles[:24]
    # the clicked page is in the first layout; siblings and test pages mix both
    articles.sort(key=lambda a: site.uses_second_template(a))
    articles = articles[:1] + sorted(articles[1:], key=lambda a: a.id)
    return {"demo:demo-two-templates": [(site.article_page(a), a.title, " ".join(a.paragraphs)) for a in articles]}


# --- the four contenders -----------------------------------------------------------------
def run_site(pages: list, failures: list | None = None) -> dict | None:
    """{method: ([title ok], [body f1])} over the site's test pages, or None without a clickable page."""
    if len(pages) >= 5:
        plans = []
        for i, page in enumerate(pages):  # the first page whose title and body can be clicked
            if find_title(parse_html(page[0]), page[1]) is not None:
                rest = pages[:i] + pages[i + 1:]
                plans.append((page, rest[:3], rest[3:]))
                break
    else:
        plans = []
        for j, test in enumerate(pages):
            others = pages[:j] + pages[j + 1:]
            clickable = [p for p in others if find_title(parse_html(p[0]), p[1]) is not None]
            if clickable:
                plans.append((clickable[0], [p for p in others if p is not clickable[0]], [test]))
    if not plans:
        return None
    results = defaultdict(lambda: ([], []))
    fallbacks = 0
    for clicked, siblings, tests in plans:
        raw, headline, body = clicked
        doc = parse_html(raw)
        t_el, b_el = find_title(doc, headline), find_body(doc, tokens(body))
        t_xp, b_xp = element_xpath(t_el), element_xpath(b_el)
        profile = induce_profile({"title": [(raw, t_xp)], "body": [(raw, b_xp)]},
                                 siblings=[s[0] for s in siblings], name="bench", start_url="http://example.test/")
        old_t, old_b = induce([(raw, t_xp)], field="title")[0], induce([(raw, b_xp)], field="body")[0]
        copy_t, copy_b = Rule(kind="xpath", selector=t_xp), Rule(kind="xpath", selector=b_xp, take="html")
        for html, want_title, want_body in tests:
            gold = tokens(want_body)
            art = extract(html, "http://example.test/page.html", profile)
            fallbacks += bool(art.fallbacks)
            _score(results["xnews"], art.title, art.body_text, want_title, gold)
            if failures is not None:
                _note_failure(failures, art, want_title, gold, profile)
            odoc = parse_html(html)
            for name, (tr, br) in (("induce()", (old_t, old_b)), ("copyxpath", (copy_t, copy_b))):
                t = [element_text(e) for e in tr.select(odoc)]
                b = " ".join(element_text(e) for e in br.select(odoc))
                _score(results[name], t[0] if t else "", b, want_title, gold)
            title, text = _trafilatura(html)
            _score(results["trafilatura"], title, text, want_title, gold)
    results["_fallbacks"] = fallbacks
    return results


def _note_failure(failures: list, art, want_title: str, gold: Counter, profile) -> None:
    """One line per wrong title / body F1 under 0.98, with precision and recall (what was added, what lost)."""
    pred = tokens(art.body_text)
    common = sum((pred & gold).values())
    prec, rec = common / max(1, sum(pred.values())), common / max(1, sum(gold.values()))
    if norm_title(art.title) != norm_title(want_title):
        failures.append(f"  title {art.title[:90]!r}\n   want {want_title[:90]!r}")
    if f1(pred, gold) < 0.98:
        rules = [r.selector for r in profile.rules_for("body")]
        extra = list((pred - gold).elements())[:25]
        missing = list((gold - pred).elements())[:25]
        failures.append(f"  body F1 {f1(pred, gold):.3f} P {prec:.3f} R {rec:.3f} rules {rules[:4]} "
                        f"remove {[r.selector for r in profile.remove][:6]} fallbacks {art.fallbacks}"
                        f"\n   extra {' '.join(extra)}\n   missing {' '.join(missing)}")


def _score(bucket, title, body, want_title, gold) -> None:
    bucket[0].append(norm_title(title) == norm_title(want_title))
    bucket[1].append(f1(tokens(body), gold))


def _trafilatura(html: str) -> tuple[str, str]:
    import trafilatura

    out = trafilatura.extract(html, output_format="json", with_metadata=True, include_comments=False)
    if not out:
        return "", ""
    data = json.loads(out)
    return data.get("title") or "", data.get("text") or ""


METHODS = ("xnews", "induce()", "copyxpath", "trafilatura")


def template_change() -> str:
    """The demo site rolls out its second layout after the profile was made on the first one: after how many
    pages of the new layout is the body flagged degraded, and does the proposed repair work on later pages?"""
    from xnews_gui.core.induction.repair import propose_repair
    from xnews_gui.core.profile.verify import WINDOW, Verifier
    from xnews_gui.demo.site import DemoSite

    site = DemoSite(second_template=True)
    old = [a for a in site.articles if not site.uses_second_template(a)]
    new = [a for a in site.articles if site.uses_second_template(a)]
    raw = site.article_page(old[0])
    doc = parse_html(raw)
    t_el, b_el = find_title(doc, old[0].title), find_body(doc, tokens(" ".join(old[0].paragraphs)))
    profile = induce_profile({"title": [(raw, element_xpath(t_el))], "body": [(raw, element_xpath(b_el))]},
                             siblings=[site.article_page(a) for a in old[1:4]], name="bench",
                             start_url="http://demo.test/")  # authored before the redesign
    verifier, failing, flagged = Verifier(), [], None
    for n, a in enumerate(new[:WINDOW], 1):  # from now on every article has the new layout
        html = site.article_page(a)
        art = extract(html, "http://demo.test" + a.path, profile)
        verifier.add(art)
        if art.checks.get("body"):
            failing.append((html, art.url))
        if "body" in verifier.degraded():
            flagged = n
            break
    if flagged is None:
        return f"template change (demo): body NOT flagged degraded within {WINDOW} pages of the new layout"
    repair = propose_repair(profile, "body", failing)
    if repair is None:
        return f"template change (demo): body flagged degraded after {flagged} pages; NO repair proposed"
    later = new[flagged:flagged + 20]  # pages of the new layout after the flag
    before, after = [], []
    for a in later:
        gold = tokens(" ".join(a.paragraphs))
        html = site.article_page(a)
        before.append(f1(tokens(extract(html, "http://demo.test" + a.path, profile).body_text), gold))
        after.append(f1(tokens(extract(html, "http://demo.test" + a.path, repair.apply(profile)).body_text), gold))
    return (f"template change (demo): body flagged degraded after {flagged} pages of the new layout; repair "
            f"{repair.source} {repair.rule.selector!r} fixes {repair.fixed}/{len(failing)} failing pages; body F1 on "
            f"{len(later)} later pages {statistics.median(before):.3f} -> {statistics.median(after):.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    ap.add_argument("--only", default="cleanportaleval,fundus,nytimes,demo")
    ap.add_argument("--failures", action="store_true",
                    help="print each failing test page of the sites tuned on (held-out sites stay unseen)")
    args = ap.parse_args()
    data = args.data.resolve()
    wanted = set(args.only.split(","))
    sets: dict = {}
    if "cleanportaleval" in wanted and (data / "cleanportaleval" / "input").is_dir():
        sets.update(cleanportaleval(data / "cleanportaleval"))
    if "fundus" in wanted and (data / "fundus-parser-test-data").is_dir():
        sets.update(fundus(data / "fundus-parser-test-data"))
    if "nytimes" in wanted and (data / "readability-test-pages").is_dir():
        sets.update(nytimes(data / "readability-test-pages"))
    if "demo" in wanted:
        sets.update(demo())
    started = time.perf_counter()
    head = " | ".join(f"{m:>11} title  body" for m in METHODS)
    print(f"{'site':42} {'tests':>5} | {head} | fallback")
    pooled = {m: ([], []) for m in METHODS}
    held = {m: ([], []) for m in METHODS}
    for site, pages in sets.items():
        failures = [] if args.failures and site in TUNED_ON else None
        res = run_site(pages, failures)
        if res is None:
            print(f"{site:42} {len(pages):5} | no page with a findable headline")
            continue
        cells = []
        for m in METHODS:
            t, b = res[m]
            pooled[m][0].extend(t)
            pooled[m][1].extend(b)
            if site not in TUNED_ON:
                held[m][0].extend(t)
                held[m][1].extend(b)
            cells.append(f"{sum(t) / len(t):11.0%} {statistics.median(b):6.3f}")
        mark = "" if site not in TUNED_ON else " (tuned on)"
        print(f"{(site + mark)[:42]:42} {len(res['xnews'][0]):5} | {' | '.join(cells)} | {res['_fallbacks']}")
        for line in failures or ():
            print(line)
    for label, agg in (("ALL test pages", pooled), ("held-out sites only", held)):
        if not agg["xnews"][0]:
            continue
        cells = [f"{sum(agg[m][0]) / len(agg[m][0]):11.1%} {statistics.median(agg[m][1]):6.3f}" for m in METHODS]
        print(f"{label:42} {len(agg['xnews'][0]):5} | {' | '.join(cells)} |")
    if "demo" in wanted:
        print(template_change())
    print(f"({time.perf_counter() - started:.0f} s; title = exact-title rate, body = median token F1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
