"""What watches cost a crawl: `main.py crawl` as users run it on the newsim simulator, without watches and
with 5 (words, a topic, a site, all three), A B B A, each run in a fresh data folder: wall clock from start
to exit and CPU seconds of the process, the stored articles and the watches' hits compared.

    python3 benchmarks/bench_watches.py [--articles 2000] [--seed 1]

The matching runs where a batch is written (one query per watch over the batch's new ids, inside the
batch's transaction); the feeds are written by a thread of their own. Run it again with another --seed
(another site's text) to check a figure on data it was not looked at on.

Last run (2 cores, newsim at 0 ms, 16 connections; 5 watches of which two match nearly every article, the
worst case): 2,000 articles, seed 1 (the run the feed writing was tuned on: every batch rewrote each
watch's feed, +1.6 s wall; now a feed is written at most every 5 s): median wall 5.32 s without, 5.30 s with;
CPU 4.32 s vs 5.02 s (8,301 hits). Held out, 1,500 articles, seed 2: wall 3.70 s vs 3.89 s (the two runs
without watches took 3.36 and 4.04 s), CPU 3.35 s vs 3.70 s (4,717 hits). Same articles stored each time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from bench_crawl import BENCH, CONCURRENCY, PROFILE, pinned, run_measured  # noqa: E402

from xnews_gui.core.versions import versions_line  # noqa: E402

WATCHES = [("giá", ["--words", "giá"]), ("thị trường", ["--words", "thị trường"]),
           ("bóng đá", ["--words", "bóng đá"]), ("site", ["--site", "newsim"]),
           ("all three", ["--words", "tăng", "--topic", "Kinh doanh", "--site", "newsim"])]


def start(articles: int, seed: int):
    proc = subprocess.Popen(pinned(0, [sys.executable, str(BENCH / "newsim.py"), "--port", "0", "--articles",
                                       str(articles), "--seed", str(seed), "--latency-ms", "0"]),
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().split()[1]


def one_run(url: str, work: Path, watched: bool) -> dict:
    data = work / ("with" if watched else "without")
    shutil.rmtree(data, ignore_errors=True)
    profile = json.loads(PROFILE.read_text(encoding="utf-8"))
    profile["start_urls"] = [url]
    profile["name"] = "newsim"
    path = work / "newsim.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    main = [sys.executable, str(REPO / "main.py"), "--data-dir", str(data)]
    subprocess.run(main + ["profiles", "import", str(path)], check=True, capture_output=True)
    if watched:
        for name, args in WATCHES:
            subprocess.run(main + ["watch", "add", name, *args], check=True, capture_output=True)
    measured = run_measured(pinned(1, main + ["crawl", "--profile", "newsim", "--no-images", "--no-raw",
                                               "--concurrency", str(CONCURRENCY), "--delay", "0", "--quiet"]), REPO)
    db = sqlite3.connect(data / "xnews.sqlite3")
    measured["articles"] = db.execute("SELECT count(*) FROM article").fetchone()[0]
    measured["urls"] = {r[0] for r in db.execute("SELECT url FROM article")}
    measured["hits"] = dict(db.execute("SELECT w.name, count(h.id) FROM watch w LEFT JOIN watch_hit h "
                                       "ON h.watch_id = w.id GROUP BY w.name").fetchall()) if watched else {}
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(versions_line(), flush=True)  # what the figures were made with
    server, url = start(args.articles, args.seed)
    work = Path(tempfile.mkdtemp(prefix="bench-watches-"))
    runs = {False: [], True: []}
    try:
        for watched in (False, True, True, False):
            result = one_run(url, work, watched)
            runs[watched].append(result)
            print(f"{'with 5 watches' if watched else 'no watch      '}: {result['wall_s']:.2f} s wall, "
                  f"{result['cpu_s']:.2f} s CPU, {result['articles']} articles"
                  + (f", hits {result['hits']}" if watched else ""), flush=True)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    same = all(r["urls"] == runs[False][0]["urls"] for r in runs[True] + runs[False])
    for watched in (False, True):
        wall = statistics.median(r["wall_s"] for r in runs[watched])
        cpu = statistics.median(r["cpu_s"] for r in runs[watched])
        print(f"median {'with' if watched else 'without'}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"same articles stored: {same}; hits the same in both runs: {runs[True][0]['hits'] == runs[True][1]['hits']}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
