"""The render pool as users run it: the CLI crawling the demo site's JavaScript-only section
(72 articles built in the browser) with 1, 2 and 4 offscreen QtWebEngine pages.

    python3 -m pip install -e ".[bench]" && python3 benchmarks/bench_render.py [--pages 1,2,4] [--repeat 1]

For each pool size: wall clock of the whole process (start-up, Chromium, classifier included), pages/s
over the crawl (from its summary), and peak memory of the process TREE (our process plus QtWebEngine's
renderer/GPU/utility processes, sampled every 50 ms with psutil), and the articles stored (must be 72).
"""

from __future__ import annotations

import argparse
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
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def tree_rss(proc) -> int:
    import psutil

    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def run(url: str, pages: int, workdir: Path) -> dict:
    import psutil

    data = json.loads((REPO / "profiles" / "demo.json").read_text(encoding="utf-8"))
    for key in ("self_test", "topics"):
        data.pop(key, None)
    data.update(name="demo-js", start_urls=[url + "js/"],
                links={"articles": {"kind": "css", "selector": "ul.js-list a.js-article", "allow": ["/js/\\d+\\.htm$"]}},
                render={"wait_for": "h1.article-title", "timeout_s": 20})
    profile = workdir / f"demo-js-{pages}.json"
    profile.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    data_dir = Path(tempfile.mkdtemp(dir=workdir, prefix=f"data-{pages}-"))  # fresh: nothing known yet
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    proc = psutil.Popen([sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir), "crawl", "--profile",
                         str(profile), "--no-images", "--render-pages", str(pages)],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    out = proc.stdout.read()
    m = re.search(r"crawl finished: .*?(\d+) new articles", out)
    rate = re.search(r"([\d.]+) s, ([\d.]+) pages/s", out)
    return {"pages": pages, "exit": proc.returncode, "wall_s": round(wall, 2),
            "crawl_s": float(rate.group(1)) if rate else None, "pages_per_s": float(rate.group(2)) if rate else None,
            "peak_tree_mib": round(peak / 2**20, 1), "articles": int(m.group(1)) if m else 0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", default="1,2,4")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    print(versions_line(), flush=True)  # what the figures were made with
    try:
        import psutil  # noqa: F401
    except ImportError:
        print('needs psutil: python3 -m pip install -e ".[bench]"')
        return 2
    from xnews_gui.demo import DemoServer

    with DemoServer(port=0) as server, tempfile.TemporaryDirectory() as tmp:
        print(f"demo site {server.url}, JavaScript-only section /js/ (72 articles + 1 list page)")
        print("pages  exit  wall s  crawl s  pages/s  peak MiB (process tree)  articles")
        for _ in range(args.repeat):
            for n in (int(x) for x in args.pages.split(",")):
                r = run(server.url, n, Path(tmp))
                print(f"{r['pages']:5d}  {r['exit']:4d}  {r['wall_s']:6.2f}  {r['crawl_s'] or 0:7.2f}  "
                      f"{r['pages_per_s'] or 0:7.2f}  {r['peak_tree_mib']:23.1f}  {r['articles']:8d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
