"""Revisits as users run them: `main.py crawl` as a process against the site simulator one revision later.

    python3 benchmarks/bench_revisit.py [--articles 300] [--seeds 1,2] [--anchor OTHER_CHECKOUT]

For each seed (a different site; seed 1 is the one the work was tried on, the others are held out):

1. ``newsim.py --revision 0`` on a port, ``main.py crawl --profile P`` (P: ``newsim_profile.json`` reading the
   sitemap, then the link rules), in a new data folder;
2. the same port at ``--revision 1`` (10% of the stories updated: a new title, an update note, a newer
   sitemap lastmod and Last-Modified; 4% gone with 410; 20 new) with ``--access-log``: ``main.py crawl
   --profile P``, the pass the periodic timer runs;
3. ``main.py crawl --profile P --revisit``: every stored article asked again.

After each step: the wall clock from start to exit, what the simulator's access log says the crawl fetched
(each article by what happened to it: updated, gone, new, unchanged; by answer: 200, 304, 410) and what the
store holds (new articles, updated ones with their new title, the update note and ``updated_at``, gone ones
with ``gone_at`` and their text still there, earlier versions). With ``--anchor DIR``, another checkout's
``main.py`` (the code before revisits, say) runs the same steps in the same run, on its own port and data
folder, for the side-by-side; a step it does not know (``--revisit``) is reported as such.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NEWSIM = REPO.parent / "shared" / "bench" / "newsim.py"


def _newsim():
    spec = importlib.util.spec_from_file_location("newsim", NEWSIM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, revision: int, articles: int, seed: int, log: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, str(NEWSIM), "--port", str(port), "--articles", str(articles),
                             "--seed", str(seed), "--extra-kb", "4", "--revision", str(revision),
                             "--access-log", str(log)], stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()  # "newsim: http://..." once it listens
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(10)


def crawl(checkout: Path, data: Path, profile: Path, *extra: str) -> dict:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, str(checkout / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                          str(profile), "--quiet", *extra], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(checkout)))
    return {"exit": out.returncode, "wall_s": round(time.perf_counter() - started, 2),
            "summary": out.stdout.strip().splitlines()[:6], "stderr": out.stderr.strip()[-300:]}


def fetched(log: Path, offset: int, kinds: dict) -> tuple[dict, int]:
    """Requests since ``offset`` of the access log: {kind: {status: n}} for article kinds, and others."""
    lines = log.read_text(encoding="utf-8").splitlines()
    counts: dict[str, Counter] = {}
    for line in lines[offset:]:
        status, path = line.split(" ", 1)
        counts.setdefault(kinds.get(path, "other"), Counter())[status] += 1
    return {k: dict(v) for k, v in sorted(counts.items())}, len(lines)


def store_state(data: Path, site1, base: str, kinds: dict) -> dict:
    db = sqlite3.connect(data / "xnews.sqlite3")
    columns = {r[1] for r in db.execute("PRAGMA table_info(article)")}
    has = "updated_at" in columns
    rows = db.execute("SELECT url, title, body_text, " + ("updated_at, gone_at" if has else "NULL, NULL")
                      + " FROM article").fetchall()
    by_path = {url[len(base):]: (title, body, updated, gone) for url, title, body, updated, gone in rows}
    titles = {a.path: a.title for a in site1.articles}
    updated = [p for p, k in kinds.items() if k == "updated"]
    gone = [p for p, k in kinds.items() if k == "gone"]
    new = [p for p, k in kinds.items() if k == "new"]
    versions = db.execute("SELECT COUNT(*) FROM article_version").fetchone()[0] \
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'article_version'").fetchone() else None
    db.close()
    return {
        "articles": len(rows),
        "new_stored": sum(p in by_path for p in new),
        "updated_replaced": sum(p in by_path and by_path[p][0] == titles[p] and "Cập nhật lần 1" in by_path[p][1]
                                and by_path[p][2] is not None for p in updated),
        "gone_marked": sum(p in by_path and by_path[p][3] is not None and len(by_path[p][1]) > 200 for p in gone),
        "earlier_versions": versions,
    }


def run(checkout: Path, work: Path, articles: int, seed: int) -> dict:
    newsim = _newsim()
    site0 = newsim.Site(articles=articles, seed=seed, extra_kb=4)
    site1 = newsim.Site(articles=articles, seed=seed, extra_kb=4, revision=1)
    before = {a.path for a in site0.articles}
    kinds = {}
    for a in site0.articles:
        kinds[a.path] = "gone" if a.path in site1.gone else "updated" if site1.updated(a) else "unchanged"
    for a in site1.articles:
        kinds.setdefault(a.path, "new")
    kinds.update({p: "new-gone" for p in site1.gone - before})
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    profile = json.loads((REPO / "benchmarks" / "newsim_profile.json").read_text(encoding="utf-8"))
    profile.update(start_urls=[base + "/"], discovery=["sitemap", "links"])
    profile["crawl"]["concurrency"] = 4
    profile_path = work / "newsim-revisit.json"
    profile_path.write_text(json.dumps(profile), encoding="utf-8")
    data, log = work / "data", work / "access.log"
    out = {"checkout": str(checkout), "seed": seed, "articles": articles,
           "site": {k: sum(1 for v in kinds.values() if v == k) for k in ("unchanged", "updated", "gone", "new")}}
    sim = serve(port, 0, articles, seed, log)
    try:
        out["first"] = crawl(checkout, data, profile_path)
    finally:
        stop(sim)
    offset = len(log.read_text(encoding="utf-8").splitlines())
    sim = serve(port, 1, articles, seed, log)
    try:
        for step, extra in (("plain", ()), ("revisit", ("--revisit",))):
            result = crawl(checkout, data, profile_path, *extra)
            result["fetched"], offset = fetched(log, offset, kinds)
            result["store"] = store_state(data, site1, base, kinds)
            unchanged_200 = result["fetched"].get("unchanged", {}).get("200", 0)
            result["unchanged_full"] = f"{unchanged_200} of {out['site']['unchanged']}"
            out[step] = result
    finally:
        stop(sim)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--seeds", default="1,2", help="sites to run (seed 1 was tried on; the others are held out)")
    parser.add_argument("--anchor", help="another checkout of XNews, run the same way beside this one")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from xnews_gui.core.versions import versions_line

    print(versions_line(), flush=True)  # what the figures were made with
    if not NEWSIM.is_file():
        sys.exit(f"the site simulator is missing: {NEWSIM}")
    results = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for checkout in ([Path(args.anchor).resolve()] if args.anchor else []) + [REPO]:
            with tempfile.TemporaryDirectory(prefix="bench-revisit-") as tmp:
                results.append(run(checkout, Path(tmp), args.articles, seed))
    for r in results:
        print(f"\n{r['checkout']}  seed {r['seed']}, {r['articles']} articles; site at revision 1: {r['site']}")
        for step in ("first", "plain", "revisit"):
            s = r[step]
            line = f"  {step:8s} exit {s['exit']} in {s['wall_s']:5.2f} s"
            if "fetched" in s:
                line += (f"; unchanged downloaded in full {s['unchanged_full']}; fetched {s['fetched']}"
                         f"\n           store {s['store']}")
            if s["exit"]:
                line += f"\n           {s['stderr']}"
            print(line)
    if args.json:
        print(json.dumps(results, ensure_ascii=False))


if __name__ == "__main__":
    main()
