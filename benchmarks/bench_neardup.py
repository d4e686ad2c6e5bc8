"""Near-duplicate detection (core/text/neardup.py) on pairs built from real pages: precision and recall.

Positive pairs are the same article as two sites would store it: the text plus one site's left-over
boilerplate (real text blocks from the page around the article: navigation, captions, related links,
footers) versus the text with its last paragraph trimmed (syndication) plus another site's
boilerplate. Negative pairs are different articles on the same topic carrying the SAME site's
boilerplate (the hard case: same section, same template). Two sources:

  vntc            Vietnamese news (../shared/data/vntc/sample), same-topic negatives; boilerplate from a
                  real vnexpress.net page (fundus-parser-test-data/test_data/vn) and "related" headlines
  cleanportaleval English portal pages with a gold main text: the page's own non-article text is its
                  boilerplate; negatives are other articles of the same site and section
  demo            (a check, not real data) the offline demo site's stories: its wire copies must group
                  with their originals, its other stories of a section must not

    python3 benchmarks/bench_neardup.py [--boilerplate 0.1,0.25,0.5] [--thresholds 0.3,0.4,0.5,0.6,0.7,0.8]

Prints precision/recall/F1 per containment threshold and boilerplate share, and the time per
signature. Pairs whose texts share over half their shingles are real duplicates inside the corpus and
are left out of the negatives (counted).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import random
import re
import sys
import time
from pathlib import Path
from xnews_gui.core.versions import versions_line  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from lxml import html as lxml_html  # noqa: E402

from xnews_gui.core.text import neardup  # noqa: E402

DATA = (HERE.parent / ".." / "shared" / "data").resolve()


def page_blocks(html_text: str) -> list[str]:
    """Visible text blocks of a page (no script/style), one per block element."""
    doc = lxml_html.fromstring(html_text)
    for bad in doc.xpath("//script|//style|//noscript|//template"):
        bad.drop_tree()
    out = []
    for el in doc.iter("p", "li", "h1", "h2", "h3", "h4", "td", "figcaption", "span", "a", "div"):
        if el.tag == "div" and len(el):  # only leaf divs
            continue
        text = " ".join(el.text_content().split())
        if len(text) >= 15 and text not in out:
            out.append(text)
    return out


def boilerplate(blocks: list[str], article_words: int, share: float, rng: random.Random) -> list[str]:
    """Blocks in random order until they hold ``share`` x the article's words."""
    want = int(article_words * share)
    picked, words = [], 0
    for b in rng.sample(blocks, len(blocks)):
        if words >= want:
            break
        picked.append(b)
        words += len(b.split())
    return picked


def copies(paragraphs: list[str], bp_a: list[str], bp_b: list[str], rng: random.Random) -> tuple[str, str]:
    """Site A: boilerplate around the whole text. Site B: last paragraph trimmed (when there are 4+),
    its own boilerplate around it."""
    cut = rng.randrange(len(bp_a) + 1)
    a = bp_a[:cut] + paragraphs + bp_a[cut:]
    body_b = paragraphs[:-1] if len(paragraphs) >= 4 else paragraphs
    cut = rng.randrange(len(bp_b) + 1)
    b = bp_b[:cut] + body_b + bp_b[cut:]
    return "\n".join(a), "\n".join(b)


def shingles(text: str, k: int = 3) -> set[str]:
    return neardup.shingles(text, k)


# --- the two sources ------------------------------------------------------------------------------
def vntc_articles() -> dict[str, list[list[str]]]:
    root = DATA / "vntc" / "sample"
    out: dict[str, list[list[str]]] = {}
    for path in sorted(root.glob("*/*/*.txt")):
        text = path.read_text(encoding="utf-16")
        paragraphs = [p.strip() for p in text.splitlines() if p.strip()]
        if len(paragraphs) == 1:  # some files are one line: split into sentences, 3 per paragraph
            sentences = re.split(r"(?<=[.!?])\s+", paragraphs[0])
            paragraphs = [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
        out.setdefault(path.parent.name, []).append(paragraphs)
    return out


def vn_boilerplate() -> list[str]:
    page = DATA / "fundus-parser-test-data" / "test_data" / "vn" / "VnExpress_2025_10_22.html.gz"
    blocks = page_blocks(gzip.decompress(page.read_bytes()).decode("utf-8", errors="replace"))
    return [b for b in blocks if len(b.split()) <= 40]  # menus, captions, related titles, footer lines


def cleanportal_articles() -> dict[str, list[tuple[list[str], list[str]]]]:
    """site_section -> [(gold paragraphs, boilerplate blocks of that page)]."""
    root = DATA / "cleanportaleval"
    out: dict[str, list] = {}
    for page in sorted((root / "input").glob("*.html")):
        gold = (root / "GoldStandard" / (page.stem + ".txt")).read_text(encoding="utf-8", errors="replace")
        paragraphs = [" ".join(b.split()) for b in re.split(r"<[hpl]>", gold.split("\n", 2)[-1]) if b.strip()]
        paragraphs = [p for p in paragraphs if not p.startswith("URL:")]
        gold_words = shingles(" ".join(paragraphs), 3)
        blocks = [b for b in page_blocks(page.read_text(encoding="utf-8", errors="replace"))
                  if len(shingles(b, 3) & gold_words) <= 0.2 * max(1, len(shingles(b, 3)))]
        site = re.sub(r"_\d+$", "", page.stem)
        out.setdefault(site, []).append((paragraphs, blocks))
    return out


def _corpus_duplicates(a: set, b: set) -> bool:
    return len(a & b) > 0.5 * max(1, min(len(a), len(b)))


def build_pairs(share: float, seed: int = 1) -> dict[str, list[tuple[str, str, bool]]]:
    rng = random.Random(seed)
    pairs: dict[str, list[tuple[str, str, bool]]] = {"vntc": [], "cleanportaleval": []}

    vn_bp = vn_boilerplate()
    topics = vntc_articles()
    titles = [arts[0] for arts in itertools.chain.from_iterable(topics.values())]
    for topic, articles in topics.items():
        def site_bp(paragraphs, site: int):
            words = sum(len(p.split()) for p in paragraphs)
            if site == 0:
                return boilerplate(vn_bp, words, share, rng)
            related = ["Tin liên quan"] + rng.sample([t for t in titles if t != paragraphs[0]], 12) + ["Theo Tuổi Trẻ"]
            return boilerplate(related, words, share, rng)
        for paragraphs in articles:
            a, b = copies(paragraphs, site_bp(paragraphs, 0), site_bp(paragraphs, 1), rng)
            pairs["vntc"].append((a, b, True))
        sets = [shingles(" ".join(x)) for x in articles]
        for (i, x), (j, y) in itertools.combinations(enumerate(articles), 2):
            if _corpus_duplicates(sets[i], sets[j]):
                pairs["vntc"].append(("", "", None))
                continue
            shared = site_bp(x, 0)  # one site, one template
            pairs["vntc"].append(("\n".join(x + shared), "\n".join(y + shared), False))

    sites = cleanportal_articles()
    site_names = sorted(sites)
    for name, pages in sites.items():
        others = [b for s in site_names if s != name for _, bl in sites[s] for b in bl]
        for paragraphs, blocks in pages:
            words = sum(len(p.split()) for p in paragraphs)
            a, b = copies(paragraphs, boilerplate(blocks, words, share, rng), boilerplate(others, words, share, rng), rng)
            pairs["cleanportaleval"].append((a, b, True))
        sets = [shingles(" ".join(x)) for x, _ in pages]
        for (i, (x, bx)), (j, (y, _)) in itertools.combinations(enumerate(pages), 2):
            if _corpus_duplicates(sets[i], sets[j]):
                pairs["cleanportaleval"].append(("", "", None))
                continue
            shared = boilerplate(bx, sum(len(p.split()) for p in x), share, rng)
            pairs["cleanportaleval"].append(("\n".join(x + shared), "\n".join(y + shared), False))
    return pairs


def demo_pairs() -> list[tuple[str, str, bool]]:
    """Every pair of the demo site's stories within a section: same story (a wire copy) or not."""
    from xnews_gui.demo.site import DemoSite

    site = DemoSite()
    return [("\n".join(a.paragraphs), "\n".join(b.paragraphs), a.story == b.story)
            for a, b in itertools.combinations(site.articles, 2) if a.cat_slug == b.cat_slug]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boilerplate", default="0.1,0.25,0.5", help="boilerplate words as a share of the article's")
    ap.add_argument("--thresholds", default="0.4,0.5,0.6,0.7", help="containment thresholds to report")
    ap.add_argument("--jaccard", default="0,0.2,0.3,0.4", help="Jaccard floors to report")
    args = ap.parse_args(argv)
    print(versions_line(), flush=True)  # what the figures were made with
    if not (DATA / "vntc" / "sample").exists() or not (DATA / "cleanportaleval").exists():
        print(f"needs ../shared/data (vntc/sample, cleanportaleval, fundus-parser-test-data): {DATA}")
        return 2
    thresholds = [float(t) for t in args.thresholds.split(",")]
    floors = [float(t) for t in args.jaccard.split(",")]
    print(f"MinHash {neardup.PERMUTATIONS} permutations, {neardup.SHINGLE}-word shingles; the product calls two texts "
          f"the same story at containment >= {neardup.MIN_CONTAINMENT} and Jaccard >= {neardup.MIN_JACCARD}")
    for share in (float(s) for s in args.boilerplate.split(",")):
        for source, pairs in build_pairs(share).items():
            t0 = time.perf_counter()
            scored, dropped, n_fp = [], 0, 0
            for a, b, same in pairs:
                if same is None:
                    dropped += 1
                    continue
                sa, sb = neardup.signature(a), neardup.signature(b)
                n_fp += 2
                if sa is None or sb is None:
                    continue
                scored.append((*neardup.similarity(sa, sb), same))
            per_fp = (time.perf_counter() - t0) / max(1, n_fp) * 1000
            pos = sum(1 for _, _, s in scored if s)
            neg = len(scored) - pos
            print(f"\n{source}, boilerplate {share:.0%} of the article: {pos} same-story pairs, {neg} different-story "
                  f"pairs ({dropped} corpus duplicates left out); {per_fp:.2f} ms per text (signature)")
            print("  containment  jaccard  precision  recall    F1     false+  false-")
            for t, floor in itertools.product(thresholds, floors):
                tp = sum(1 for j, c, s in scored if s and c >= t and j >= floor)
                fp = sum(1 for j, c, s in scored if not s and c >= t and j >= floor)
                fn = pos - tp
                p = tp / (tp + fp) if tp + fp else 1.0
                r = tp / pos if pos else 0.0
                f1 = 2 * p * r / (p + r) if p + r else 0.0
                mark = " <- product" if (t, floor) == (neardup.MIN_CONTAINMENT, neardup.MIN_JACCARD) else ""
                print(f"  {t:11.2f}  {floor:7.2f}  {p:9.4f}  {r:6.4f}  {f1:6.4f}  {fp:6d}  {fn:6d}{mark}")
    scored = [(*neardup.similarity(neardup.signature(a), neardup.signature(b)), same) for a, b, same in demo_pairs()]
    grouped = [same for j, c, same in scored if c >= neardup.MIN_CONTAINMENT and j >= neardup.MIN_JACCARD]
    print(f"\ndemo site (a check): {sum(s for *_, s in scored)} wire-copy pairs, {sum(grouped)} grouped; "
          f"{sum(not s for *_, s in scored)} pairs of distinct stories of a section, {grouped.count(False)} grouped; "
          f"their containment at most {max(c for _, c, s in scored if not s):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
