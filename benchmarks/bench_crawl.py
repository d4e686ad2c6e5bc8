"""The XNews command line and Scrapy side by side against the newsim site simulator, as users run them.

    pip install -e .[bench]        # scrapy
    python benchmarks/bench_crawl.py [--articles 2000] [--latencies 0,50] [--rounds 1]

For each latency a fresh simulator is started, pinned to CPU 0 (taskset), warmed by one
untimed Scrapy crawl (it renders each page on first request, then serves it from memory), and
the two crawlers run pinned to CPU 1, interleaved A B B A (``--rounds`` repeats the pattern):

  xnews   python main.py --data-dir TMP crawl --profile benchmarks/newsim_profile.json
          --no-images --concurrency 16 --delay 0      (a fresh data folder each run; the
          classifier ON, as the default install has it: the bundled topic model)
  scrapy  scrapy runspider ../shared/bench/newsim_spider.py, 16 concurrent / 16 per domain

Our modules' bytecode is compiled first (``compileall``), as an installed package has it
(Scrapy's is, by pip): with PYTHONDONTWRITEBYTECODE set, every run would otherwise compile
all of our source again (~0.15 s of CPU that users don't pay).
Wall clock runs from process start to exit (start-up, model load, final commit included);
CPU seconds (user + system) and peak RSS come from the OS (wait4). Each run's items are
compared with Scrapy's: the same article URLs, the same titles, no duplicate. Machines are
noisy: read the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xnews_gui.core.versions import versions_line  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BENCH = (REPO / ".." / "shared" / "bench").resolve()
PROFILE = HERE / "newsim_profile.json"
CONCURRENCY = 16


def pinned(cpu: int, cmd: list[str]) -> list[str]:
    return (["taskset", "-c", str(cpu)] + cmd) if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else cmd


def start_newsim(articles: int, latency: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(pinned(0, [sys.executable, str(BENCH / "newsim.py"), "--port", "0", "--articles",
                                       str(articles), "--latency-ms", str(latency)]),
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "newsim: http://127.0.0.1:PORT/  (...)"
    return proc, line.split()[1]


def run_measured(cmd: list[str], cwd: Path, env: dict | None = None) -> dict:
    """Wall seconds (start to exit), CPU seconds and peak RSS bytes of a child process, from the OS."""
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if code:
        raise RuntimeError(f"{' '.join(cmd[:6])}... failed ({code}):\n{text[-1500:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024, "out": text}


def run_scrapy(url: str, work: Path) -> dict:
    stats = work / "scrapy-stats.jsonl"
    items = work / "scrapy-items.jsonl"
    cmd = pinned(1, [shutil.which("scrapy") or "scrapy", "runspider", str(BENCH / "newsim_spider.py"),
                     "-a", f"start={url}", "-a", f"stats={stats}", "-O", str(items),
                     "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
                     "-s", "LOG_LEVEL=WARNING"])
    r = run_measured(cmd, work)
    data = json.loads(stats.read_text().splitlines()[-1])
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines() if line.strip()]
    r.update(pages=data["pages"], items={row["url"]: row["title"] for row in rows}, rows=len(rows))
    return r


def run_xnews(url: str, work: Path) -> dict:
    profile = json.loads(PROFILE.read_text(encoding="utf-8"))
    profile["start_urls"] = [url]
    profile_file = work / "newsim.json"
    profile_file.write_text(json.dumps(profile), encoding="utf-8")
    data = work / "data"
    cmd = pinned(1, [sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                     str(profile_file), "--no-images", "--concurrency", str(CONCURRENCY), "--delay", "0"])
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = run_measured(cmd, REPO, env)
    db = sqlite3.connect(data / "xnews.sqlite3")
    try:
        rows = db.execute("SELECT url, title, category FROM article").fetchall()
        pages = db.execute("SELECT count(*) FROM page WHERE error = ''").fetchone()[0]
    finally:
        db.close()
    r.update(pages=pages, items={u: t for u, t, _ in rows}, rows=len(rows),
             classified=sum(1 for *_, c in rows if c))
    return r


def compare(ours: dict, ref: dict) -> str:
    """'ok' when both crawlers produced the same articles with the same titles and no duplicate."""
    problems = []
    if ours["rows"] != len(ours["items"]):
        problems.append(f"{ours['rows'] - len(ours['items'])} duplicate URLs")
    missing = ref["items"].keys() - ours["items"].keys()
    extra = ours["items"].keys() - ref["items"].keys()
    if missing:
        problems.append(f"{len(missing)} missing")
    if extra:
        problems.append(f"{len(extra)} extra")
    titles = sum(1 for u in ref["items"].keys() & ours["items"].keys()
                 if (ref["items"][u] or "").strip() != (ours["items"][u] or "").strip())
    if titles:
        problems.append(f"{titles} titles differ")
    return "; ".join(problems) or "ok"


RUNNERS = {"xnews": run_xnews, "scrapy": run_scrapy}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--latencies", default="0,50", help="server latencies in ms, comma-separated")
    ap.add_argument("--rounds", type=int, default=1, help="how many times the A B B A pattern runs")
    args = ap.parse_args()
    print(versions_line(), flush=True)  # what the figures were made with
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "xnews_gui")], check=True,
                   stdout=subprocess.DEVNULL)
    results: dict = {}
    for latency in (int(x) for x in args.latencies.split(",")):
        server, url = start_newsim(args.articles, latency)
        try:
            # The simulator renders each page the first time it is asked for it and keeps it: the
            # first crawl against a fresh one pays that (XNews's, as A always comes first). One
            # untimed crawl by the anchor warms it, so every timed run meets the same server.
            work = Path(tempfile.mkdtemp(prefix="xnews-bench-"))
            try:
                r = run_scrapy(url, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            print(f"  {latency:>3} ms warm-up (scrapy, not counted) {r['wall_s']:6.2f} s", file=sys.stderr, flush=True)
            for _ in range(args.rounds):
                for name in ("xnews", "scrapy", "scrapy", "xnews"):
                    work = Path(tempfile.mkdtemp(prefix="xnews-bench-"))
                    try:
                        r = RUNNERS[name](url, work)
                    finally:
                        shutil.rmtree(work, ignore_errors=True)
                    results.setdefault((latency, name), []).append(r)
                    print(f"  {latency:>3} ms {name:7s} {r['wall_s']:6.2f} s  {r['pages']} pages  "
                          f"{len(r['items'])} articles  CPU {r['cpu_s']:.2f} s  RSS {r['rss'] / 2**20:.0f} MiB",
                          file=sys.stderr, flush=True)
        finally:
            server.terminate()
            server.wait()
    report(results)


def report(results: dict) -> None:
    print(f"\n{'latency':>7} {'crawler':7} {'wall s (each run)':>24} {'pages':>6} {'articles':>8} "
          f"{'CPU ms/page':>11} {'peak RSS MiB':>12} {'speed':>6} {'CPU':>6} {'RSS':>6}  items vs Scrapy")
    for latency in sorted({lat for lat, _ in results}):
        ref = results.get((latency, "scrapy"))
        for name in ("scrapy", "xnews"):
            runs = results.get((latency, name))
            if not runs:
                continue
            wall = statistics.median(r["wall_s"] for r in runs)
            cpu = statistics.median(r["cpu_s"] / max(1, r["pages"]) * 1000 for r in runs)
            rss = statistics.median(r["rss"] for r in runs) / 2**20
            speed = cpu_ratio = rss_ratio = ""
            check = ""
            if name != "scrapy" and ref:
                speed = f"{statistics.median(r['wall_s'] for r in ref) / wall:.2f}x"
                cpu_ratio = f"{cpu / statistics.median(r['cpu_s'] / max(1, r['pages']) * 1000 for r in ref):.2f}x"
                rss_ratio = f"{rss / (statistics.median(r['rss'] for r in ref) / 2**20):.2f}x"
                check = ", ".join(sorted({compare(r, ref[0]) for r in runs}))
                classified = min(r.get("classified", 0) for r in runs)
                check += f" (classified {classified})"
            each = " ".join(f"{r['wall_s']:.2f}" for r in runs)
            print(f"{latency:>5}ms {name:7} {each:>24} {runs[0]['pages']:>6} {len(runs[0]['items']):>8} "
                  f"{cpu:>11.2f} {rss:>12.0f} {speed:>6} {cpu_ratio:>6} {rss_ratio:>6}  {check}")
    print("speed = Scrapy's median wall clock / ours; CPU and RSS = ours / Scrapy's (lower is better)")


if __name__ == "__main__":
    main()
