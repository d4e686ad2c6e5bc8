"""Selector induction on CleanPortalEval: rules authored on ONE page, measured on the site's others.

For each multi-page site/section of ../shared/data/cleanportaleval, the "click" is simulated the way
a person would do it: on the authoring page, the element whose text is the gold headline (title) and
the element whose text best matches the gold body (body). ``induce`` turns each click into rules; the
best rule is applied to every other page of the site:

  title   exact-title rate: extracted text == gold headline (whitespace, quotes and dashes normalised)
  body    token F1 of the extracted body text against the gold text (headline excluded)

Both are reported for authoring on the first page and averaged over every choice of authoring page.
The "oracle" column is the best single element per page (an upper bound for any one-element rule).

    python benchmarks/bench_induction.py [--data ../shared/data/cleanportaleval]
"""

from __future__ import annotations

import argparse
import html as htmlmod
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xnews_gui.core.rules import element_text, normalize_space, parse_html  # noqa: E402
from xnews_gui.core.selectors import element_xpath, induce  # noqa: E402

_TOKEN = re.compile(r"\w+", re.U)
_BLOCK_TAGS = {"div", "td", "article", "section", "main", "span", "p", "ul", "table", "tbody", "tr", "font", "center", "blockquote", "form"}


def tokens(text: str) -> Counter:
    return Counter(t.lower() for t in _TOKEN.findall(text))


def f1(pred: Counter, gold: Counter) -> float:
    common = sum((pred & gold).values())
    if not common:
        return 0.0
    p, r = common / sum(pred.values()), common / sum(gold.values())
    return 2 * p * r / (p + r)


def read_gold(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    blocks = re.split(r"<(h|p|l)>", text)
    # re.split with a group: [prefix, tag, body, tag, body, ...]
    pairs = [(blocks[i], normalize_space(htmlmod.unescape(blocks[i + 1]))) for i in range(1, len(blocks) - 1, 2)]
    headline = next((b for t, b in pairs if t == "h"), "")
    body = " ".join(b for t, b in pairs if b != headline)
    return headline, body


def norm_title(text: str) -> str:
    text = htmlmod.unescape(text).replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"').replace("\u2014", "-").replace("\u2013", "-")
    return normalize_space(text)


def find_title(doc, headline: str):
    want = norm_title(headline)
    if not want:
        return None
    best = None
    for el in doc.iter():
        if not isinstance(el.tag, str) or el.tag in ("title", "script", "style", "meta", "head", "html", "body"):
            continue
        if norm_title(element_text(el)) == want:
            if best is None or len(list(el.iterancestors())) > len(list(best.iterancestors())):
                best = el
    return best


def find_body(doc, gold: Counter):
    best, best_f = None, 0.0
    for el in doc.iter(*_BLOCK_TAGS):
        score = f1(tokens(element_text(el)), gold)
        if score > best_f:
            best, best_f = el, score
    return best, best_f


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data" / "cleanportaleval")
    args = ap.parse_args()
    data = args.data.resolve()
    if not (data / "input").is_dir():
        print(f"data not found: {data}", file=sys.stderr)
        return 2
    groups: dict[str, list[str]] = defaultdict(list)
    for f in sorted((data / "input").glob("*.html")):
        groups[f.stem.rsplit("_", 1)[0]].append(f.stem)
    started = time.perf_counter()
    print(f"{'site_section':30} {'pages':>5} | {'title exact':>11} {'body F1':>7} (first page) | "
          f"{'title exact':>11} {'body F1':>7} (mean over authoring pages) | oracle F1 | rules (first page)")
    total = defaultdict(list)
    all_skipped: list[str] = []
    for group, stems in groups.items():
        if len(stems) < 3:
            continue
        pages = {}
        skipped: list[str] = []
        for stem in stems:
            raw = (data / "input" / f"{stem}.html").read_text(encoding="utf-8", errors="replace")
            headline, body = read_gold(data / "GoldStandard" / f"{stem}.txt")
            if not headline or not body:
                skipped.append(stem)  # an empty gold file (e.g. a page that failed to crawl)
                continue
            doc = parse_html(raw)
            pages[stem] = (raw, doc, headline, tokens(body))
        all_skipped.extend(skipped)
        stems = [s for s in stems if s in pages]
        oracle = [find_body(p[1], p[3])[1] for p in pages.values()]
        runs = []
        for author in stems:
            raw, doc, headline, gold = pages[author]
            t_el = find_title(doc, headline)
            b_el, _ = find_body(doc, gold)
            if t_el is None or b_el is None:
                continue
            t_rule = induce([(raw, element_xpath(t_el))], field="title")[0]
            b_rule = induce([(raw, element_xpath(b_el))], field="body")[0]
            titles, bodies = [], []
            for other in stems:
                if other == author:
                    continue
                _, odoc, oheadline, ogold = pages[other]
                got = [element_text(e) for e in t_rule.select(odoc)]
                titles.append(bool(got) and norm_title(got[0]) == norm_title(oheadline))
                text = " ".join(element_text(e) for e in b_rule.select(odoc))
                bodies.append(f1(tokens(text), ogold))
            runs.append((author, sum(titles) / len(titles), sum(bodies) / len(bodies), t_rule, b_rule))
        if not runs:
            print(f"{group:30} {len(stems):5} | no page with a findable headline")
            continue
        first = runs[0]
        mean_t = sum(r[1] for r in runs) / len(runs)
        mean_b = sum(r[2] for r in runs) / len(runs)
        total["first_t"].append(first[1])
        total["first_b"].append(first[2])
        total["mean_t"].append(mean_t)
        total["mean_b"].append(mean_b)
        print(f"{group:30} {len(stems):5} | {first[1]:11.1%} {first[2]:7.3f}              | "
              f"{mean_t:11.1%} {mean_b:7.3f} ({len(runs)} authoring pages)        | {sum(oracle) / len(oracle):9.3f} | "
              f"title {first[3].selector!r}, body {first[4].selector!r}")
    if total:
        n = len(total["first_t"])
        print(f"{'macro average':30} {'':5} | {sum(total['first_t']) / n:11.1%} {sum(total['first_b']) / n:7.3f}"
              f"              | {sum(total['mean_t']) / n:11.1%} {sum(total['mean_b']) / n:7.3f}")
    if all_skipped:
        print(f"pages without gold text, left out: {', '.join(all_skipped)}")
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
