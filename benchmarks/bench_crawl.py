"""Our crawler and Scrapy side by side against the newsim site simulator.

    pip install -e .[bench]        # scrapy, psutil
    python benchmarks/bench_crawl.py [--articles 2000] [--latencies 0,50] [--repeat 1]

For each latency and each crawler, a fresh simulator is started (pinned to CPU 0
with taskset when available) and the crawler runs pinned to CPU 1, with the same
concurrency and per-host limit (16/16, as in ../shared/bench/README.md).
Crawlers compared:
  scrapy        the reference spider (../shared/bench/newsim_spider.py), JSON-lines feed
  xnews-jsonl   our engine writing the same JSON lines (like-for-like)
  xnews-store   our engine as the product runs it: SQLite store with FTS, raw pages kept
pages/s is measured by each crawler from its first request to its end; CPU
seconds (user + system, whole process, start-up included) and peak RSS come
from the OS (wait4). Machines are noisy: read the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BENCH = (REPO / ".." / "shared" / "bench").resolve()
CONCURRENCY = 16


def pinned(cpu: int, cmd: list[str]) -> list[str]:
    return (["taskset", "-c", str(cpu)] + cmd) if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else cmd


def start_newsim(articles: int, latency: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(pinned(0, [sys.executable, str(BENCH / "newsim.py"), "--port", "0", "--articles",
                                       str(articles), "--latency-ms", str(latency)]),
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "newsim: http://127.0.0.1:PORT/  (...)"
    return proc, line.split()[1]


def run_measured(cmd: list[str], cwd: Path) -> tuple[float, int, str]:
    """(CPU seconds, peak RSS bytes, stdout) of a child process."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {text[-500:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def run_scrapy(url: str, work: Path) -> dict:
    stats = work / "scrapy-stats.jsonl"
    cmd = pinned(1, [shutil.which("scrapy") or "scrapy", "runspider", str(BENCH / "newsim_spider.py"),
                     "-a", f"start={url}", "-a", f"stats={stats}", "-O", str(work / "scrapy-items.jsonl"),
                     "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
                     "-s", "LOG_LEVEL=WARNING"])
    cpu, rss, _ = run_measured(cmd, work)
    data = json.loads(stats.read_text().splitlines()[-1])
    return {"pages": data["pages"], "items": data["items"], "pages_per_s": data["pages_per_s"], "cpu_s": cpu,
            "rss": rss}


def run_ours(url: str, work: Path, sink: str) -> dict:
    cmd = pinned(1, [sys.executable, str(Path(__file__).resolve()), "--worker", sink, "--url", url,
                     "--work", str(work)])
    cpu, rss, out = run_measured(cmd, REPO)
    data = json.loads(out.strip().splitlines()[-1])
    data.update(cpu_s=cpu, rss=rss)
    return data


# --- the worker: our engine in its own process ------------------------------------
class JsonLinesSink:
    """The same output as Scrapy's feed: one JSON line per article."""

    image_root = None
    raw_root = None

    def __init__(self, path: Path):
        self._fh = open(path, "w", encoding="utf-8")
        self._lock = threading.Lock()
        self._n = 0

    def is_known(self, url):
        return False

    def store_article(self, article, category=None, confidence=None, section_label=None):
        line = json.dumps({"url": article.url, "title": article.title, "summary": article.summary,
                           "image": article.image, "body": article.body_text}, ensure_ascii=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._n += 1
            return self._n, True

    def record_page(self, *args, **kwargs):
        pass

    def record_failure(self, url, reason):
        pass

    def record_image(self, *args, **kwargs):
        pass

    def flush(self):
        self._fh.flush()


def worker(kind: str, url: str, work: Path) -> None:
    sys.path.insert(0, str(REPO))
    from xnews_gui.core.profile import Profile
    from xnews_gui.crawl import CrawlOptions, Crawler

    profile = Profile.from_json((HERE / "newsim_profile.json").read_text(encoding="utf-8")).with_(start_urls=(url,))
    if kind == "store":
        from xnews_gui.store.db import open_database
        from xnews_gui.store.sink import StoreSink

        open_database(work / "xnews.sqlite3")
        sink = StoreSink(profile.name, work)
    else:
        sink = JsonLinesSink(work / "xnews-items.jsonl")
    rss_curve: list[tuple[int, int]] = []
    page_size = os.sysconf("SC_PAGE_SIZE")

    def on_event(event):
        if event.kind == "stats":
            with open("/proc/self/statm") as fh:
                rss_curve.append((event.data["pages"], int(fh.read().split()[1]) * page_size))

    options = CrawlOptions(concurrency=CONCURRENCY, per_host=CONCURRENCY, fetch_images=False,
                           save_raw=(kind == "store"))
    summary = Crawler(profile, sink, state_dir=work / "crawl", options=options, on_event=on_event).run()
    print(json.dumps({"pages": summary["pages"], "items": summary["articles"], "pages_per_s": summary["pages_per_s"],
                      "errors": summary["errors_by_kind"], "rss_curve": rss_curve}))


# --- the comparison ------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--latencies", default="0,50", help="server latencies in ms, comma-separated")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell (the median is shown)")
    ap.add_argument("--crawlers", default="scrapy,xnews-jsonl,xnews-store")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.url, Path(args.work))
        return
    crawlers = args.crawlers.split(",")
    results: dict = {}
    for latency in (int(x) for x in args.latencies.split(",")):
        for _ in range(args.repeat):
            for name in crawlers:
                server, url = start_newsim(args.articles, latency)
                work = Path(tempfile.mkdtemp(prefix="xnews-bench-"))
                try:
                    if name == "scrapy":
                        r = run_scrapy(url, work)
                    else:
                        r = run_ours(url, work, name.split("-", 1)[1])
                finally:
                    server.terminate()
                    server.wait()
                    shutil.rmtree(work, ignore_errors=True)
                results.setdefault((latency, name), []).append(r)
                print(f"  {latency:>3} ms {name:12s} {r['pages']} pages {r['items']} items "
                      f"{r['pages_per_s']:.0f} pages/s", file=sys.stderr, flush=True)
    report(results, crawlers)


def report(results: dict, crawlers: list[str]) -> None:
    print(f"\n{'latency':>7} {'crawler':12s} {'pages':>6} {'items':>6} {'pages/s':>8} {'CPU s/1k pages':>15} "
          f"{'peak RSS MiB':>13} {'pages/s ratio':>14} {'CPU ratio':>10}")
    for (latency, name), runs in sorted(results.items(), key=lambda kv: (kv[0][0], crawlers.index(kv[0][1]))):
        r = _median(runs)
        base = results.get((latency, "scrapy"))
        ratio = cpu_ratio = ""
        if base and name != "scrapy":
            b = _median(base)
            ratio = f"{r['pages_per_s'] / b['pages_per_s']:.2f}x"
            cpu_ratio = f"{r['cpu_per_k'] / b['cpu_per_k']:.2f}x"
        print(f"{latency:>5}ms {name:12s} {r['pages']:>6} {r['items']:>6} {r['pages_per_s']:>8.0f} "
              f"{r['cpu_per_k']:>15.2f} {r['rss'] / 2**20:>13.0f} {ratio:>14} {cpu_ratio:>10}")
    for (latency, name), runs in sorted(results.items()):
        curve = runs[-1].get("rss_curve")
        if curve:
            marks = [curve[int(i * (len(curve) - 1) / 4)] for i in range(5)]
            print(f"  RSS during the crawl, {name} at {latency} ms: " +
                  ", ".join(f"{p} pages {rss / 2**20:.0f} MiB" for p, rss in marks))


def _median(runs: list[dict]) -> dict:
    out = dict(runs[0])
    for key in ("pages_per_s", "cpu_s", "rss"):
        out[key] = statistics.median(r[key] for r in runs)
    out["cpu_per_k"] = statistics.median(r["cpu_s"] / r["pages"] * 1000 for r in runs)
    return out


if __name__ == "__main__":
    main()
