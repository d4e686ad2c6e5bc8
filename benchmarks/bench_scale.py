"""Scale-out on the newsim simulator: the exported Scrapy project with 1, 2 and 4 workers sharing a
Redis frontier, beside the desktop crawl, as users run them (processes, wall clock start to exit).

    pip install -e .[scale]        # scrapy, redis; and Debian's redis-server
    python benchmarks/bench_scale.py [--articles 1000] [--latency 50] [--concurrency 4] [--workers 1,2,4]

One simulator (``../shared/bench/newsim.py``, 50 ms latency, pinned to CPU 0 when taskset is there)
serves every run. The desktop crawl is ``main.py crawl`` (fresh data folder, classifier on, no images,
delay 0, the same concurrency as one worker). Each cluster run starts a fresh ``redis-server`` and N
``scrapy crawl xnews -a profile=newsim -s XNEWS_REDIS_URL=...`` processes together; its wall clock runs
from the first start to the last exit. Start-up (the interpreter, Scrapy's imports, the engine) counts in
the wall clock but not in "pages/s running": the pages over the span from the first worker's spider
open to the last one's close (Scrapy's start_time and finish_time in each worker's stats), which is
what N workers sustain once running (the "x 1 w" column compares that with one worker's). Redis round trips are counted by the workers (every script call:
push, pop, ack, heartbeat, politeness). Items are compared with the desktop crawl's articles: the
same URLs, no URL twice. The machine has 2 cores shared by everything: read the ratios.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xnews_gui.core.versions import versions_line  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_crawl import PROFILE, REPO, run_measured, start_newsim  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(REPO))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def desktop(url: str, work: Path, concurrency: int) -> dict:
    profile_file = work / "newsim.json"
    data = work / "desktop-data"
    cmd = [sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile", str(profile_file),
           "--no-images", "--no-raw", "--quiet", "--concurrency", str(concurrency), "--delay", "0"]
    r = run_measured(cmd, REPO, ENV)
    import sqlite3

    db = sqlite3.connect(data / "xnews.sqlite3")
    try:
        r["urls"] = [u for (u,) in db.execute("SELECT url FROM article")]
        r["pages"] = db.execute("SELECT count(*) FROM page WHERE error = ''").fetchone()[0]
    finally:
        db.close()
    return r


def cluster(url: str, work: Path, project: Path, workers: int) -> dict:
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    try:
        outs, procs, logs = [], [], []
        started = time.perf_counter()
        for i in range(workers):
            out = work / f"c{workers}-w{i}.jsonl"
            log = open(work / f"c{workers}-w{i}.log", "wb")  # noqa: SIM115
            outs.append(out)
            logs.append(log)
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "scrapy", "crawl", "xnews", "-a", "profile=newsim", "-O", str(out),
                 "-s", f"XNEWS_REDIS_URL=redis://127.0.0.1:{port}/0", "-s", "LOG_LEVEL=INFO"],
                cwd=project, env=ENV, stdout=log, stderr=subprocess.STDOUT))
        cpu = 0.0
        for proc in procs:
            _, status, usage = os.wait4(proc.pid, 0)
            cpu += usage.ru_utime + usage.ru_stime
            if os.waitstatus_to_exitcode(status):
                raise RuntimeError(f"a worker failed: see {work}")
        wall = time.perf_counter() - started
        for log in logs:
            log.close()
    finally:
        redis.terminate()
        redis.wait()
    pages = trips = 0
    crawl_s = 0.0
    opened, closed = [], []
    per_worker = []
    urls: list[str] = []
    for i, out in enumerate(outs):
        text = (work / f"c{workers}-w{i}.log").read_text(errors="replace")
        pages_i = _stat(text, "response_received_count") - _stat(text, "robotstxt/response_count")
        pages += pages_i
        trips += _stat(text, "xnews/redis_round_trips")
        found = re.findall(r"'elapsed_time_seconds': ([0-9.]+)", text)
        crawl_s = max(crawl_s, float(found[-1]) if found else 0.0)
        opened.append(_time(text, "start_time"))
        closed.append(_time(text, "finish_time"))
        per_worker.append(pages_i)
        urls += [json.loads(line)["url"] for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    span = (max(closed) - min(opened)).total_seconds()
    return {"wall_s": wall, "cpu_s": cpu, "pages": pages, "trips": trips, "per_worker": per_worker, "urls": urls,
            "crawl_s": crawl_s, "span_s": span}


def _time(log: str, name: str) -> datetime.datetime:
    found = re.findall(rf"'{re.escape(name)}': datetime\.datetime\(([0-9, ]+)", log)
    if not found:
        raise RuntimeError(f"no {name} in a worker's stats")
    parts = [int(x) for x in found[-1].split(",")[:7]]
    return datetime.datetime(*parts)


def _stat(log: str, name: str) -> int:
    found = re.findall(rf"'{re.escape(name)}': (\d+)", log)
    return int(found[-1]) if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, default=1000)
    ap.add_argument("--latency", type=int, default=50, help="simulator latency in ms")
    ap.add_argument("--concurrency", type=int, default=4, help="requests in flight per worker (and desktop)")
    ap.add_argument("--workers", default="1,2,4")
    args = ap.parse_args()
    print(versions_line(), flush=True)  # what the figures were made with
    counts = [int(x) for x in args.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="xnews-bench-scale-") as tmp:
        work = Path(tmp)
        sim, url = start_newsim(args.articles, args.latency)
        try:
            profile = json.loads(PROFILE.read_text(encoding="utf-8"))
            profile.update(start_urls=[url])
            profile["crawl"].update(concurrency=args.concurrency, delay_s=0.0)
            (work / "newsim.json").write_text(json.dumps(profile), encoding="utf-8")
            project = work / "project"
            subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(work / "export-data"),
                            "scrapy-project", "--profile", str(work / "newsim.json"), "-o", str(project)],
                           check=True, env=ENV, stdout=subprocess.DEVNULL)
            print(f"newsim {args.articles} articles, {args.latency} ms latency, {args.concurrency} requests in "
                  f"flight per process, {os.cpu_count()} CPUs")
            ref = desktop(url, work, args.concurrency)
            want = set(ref["urls"])
            print(f"{'run':<12}{'wall s':>8}{'pages':>7}{'pages/s':>9}{'x desk':>8}{'run s':>7}{'running':>9}"
                  f"{'x 1 w':>7}{'CPU s':>8}{'RT/page':>9}  items")
            rate0 = ref["pages"] / ref["wall_s"]
            print(f"{'desktop':<12}{ref['wall_s']:>8.1f}{ref['pages']:>7}{rate0:>9.1f}{1.0:>8.2f}{'-':>7}{'-':>9}"
                  f"{'-':>7}{ref['cpu_s']:>8.1f}{'-':>9}  {len(want)} articles")
            one = None
            for n in counts:
                r = cluster(url, work, project, n)
                rate, running = r["pages"] / r["wall_s"], r["pages"] / r["span_s"]
                one = running if n == 1 else one
                versus = f"{running / one:>7.2f}" if one else f"{'-':>7}"
                same = "same as desktop" if set(r["urls"]) == want and len(r["urls"]) == len(want) else \
                    f"DIFFERENT ({len(set(r['urls']))} urls, {len(r['urls']) - len(set(r['urls']))} twice)"
                print(f"{f'{n} worker(s)':<12}{r['wall_s']:>8.1f}{r['pages']:>7}{rate:>9.1f}{rate / rate0:>8.2f}"
                      f"{r['span_s']:>7.1f}{running:>9.1f}{versus}{r['cpu_s']:>8.1f}"
                      f"{r['trips'] / max(1, r['pages']):>9.2f}  {same}; pages per worker {r['per_worker']}")
        finally:
            sim.terminate()
            sim.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
