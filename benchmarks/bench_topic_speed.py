"""The topic classifier's cost as users meet it: start-up, then ms per article in batches and one at a time.

    python benchmarks/bench_topic_speed.py [--data ../shared/data] [--anchor OLD_CHECKOUT]

1. ``main.py classify MODEL <VNTC sample test folder>`` as a process, wall clock from start to exit
   (start-up, model load, reading and classifying 200 articles), best of 3; with ``--anchor`` the same
   command of another checkout (e.g. a worktree of the commit before the data-only model) runs
   alternately (A B B A), and the labels printed by both are compared.
2. In process: load time of the bundled model, then ``predict_many`` over the 400 sample articles in
   batches of 64 and one at a time (wall and CPU ms per article, best of 3).

Last run (2 cores shared by ~8 busy agents: wall figures are noisy, CPU figures steadier):
  CLI classify, 200 articles: 2.56-3.05 s (data-only model) vs 7.30-7.95 s (anchor: the commit before,
  pickled scikit-learn pipeline), A B B A; labels identical on 188/188 articles the new model labels,
  12 refused as low confidence
  in process: model load 0.32 s; predict_many in batches of 64: 0.80 ms CPU/article (2.4 ms wall),
  one at a time: 1.06 ms CPU/article (3.3 ms wall); 2,214 characters per article on average
  (the scikit-learn pipeline, measured the same way before the change: 1.13 and 2.0 ms CPU/article)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def cli_run(checkout: Path, model: Path, folder: Path, data: Path) -> tuple[float, list[str]]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, str(checkout / "main.py"), "--data-dir", str(data),
                          "classify", str(model), str(folder)], capture_output=True, text=True,
                         cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)})
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{checkout}: classify failed: {out.stderr.strip()}")
    return took, [line.split("\t")[1] for line in out.stdout.splitlines()]


def bundled_model(checkout: Path) -> Path:
    for name in ("topic.npz", "topic.joblib"):
        if (checkout / "resources" / "model" / name).exists():
            return checkout / "resources" / "model" / name
    raise SystemExit(f"no bundled model in {checkout}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--anchor", help="another checkout whose `classify` runs side by side")
    args = parser.parse_args()
    sample = Path(args.data) / "vntc" / "sample"
    if not sample.is_dir():
        raise SystemExit(f"VNTC sample not found at {sample}")
    folder = sample / "Test_Full"

    runs = [("new", REPO)] + ([("anchor", Path(args.anchor))] if args.anchor else [])
    order = runs + runs[::-1] + runs + runs[::-1] if args.anchor else runs * 3
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    labels: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as data:
        for name, checkout in order:
            took, labels[name] = cli_run(checkout, bundled_model(checkout), folder, Path(data) / name)
            times[name].append(took)
    for name, _ in runs:
        print(f"CLI classify {len(labels[name])} articles [{name}]: "
              + ", ".join(f"{t:.2f}" for t in times[name]) + f" s (best {min(times[name]):.2f})")
    if args.anchor:
        pairs = list(zip(labels["new"], labels["anchor"]))
        given = [(a, b) for a, b in pairs if a != "-"]
        print(f"labels identical on {sum(a == b for a, b in given)}/{len(given)} articles the new model labels; "
              f"{len(pairs) - len(given)} refused as out of domain (low confidence)")

    from xnews_gui.classify.model import TopicClassifier

    start = time.perf_counter()
    model = TopicClassifier.load(bundled_model(REPO))
    print(f"in process: model load {time.perf_counter() - start:.3f} s")
    texts = [p.read_text(encoding="utf-16") for p in sorted(sample.glob("*/*/*.txt"))]
    model.predict_many(texts[:64])
    for batch in (64, 1):
        best_wall = best_cpu = float("inf")
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            for i in range(0, len(texts), batch):
                model.predict_many(texts[i:i + batch])
            best_wall = min(best_wall, (time.perf_counter() - wall) * 1000 / len(texts))
            best_cpu = min(best_cpu, (time.process_time() - cpu) * 1000 / len(texts))
        print(f"predict_many, batches of {batch:>2}: {best_wall:.2f} ms/article wall, {best_cpu:.2f} ms CPU "
              f"({len(texts)} articles, {sum(map(len, texts)) // len(texts)} characters each on average)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
