"""The topic classifier's cost as users meet it: start-up, then ms per article in batches and one at a time.

    python benchmarks/bench_topic_speed.py [--data ../shared/data] [--anchor OLD_CHECKOUT] [--no-cli]
    python benchmarks/bench_topic_speed.py --pipeline 2000 [--anchor OLD_CHECKOUT]

1. ``main.py classify MODEL <VNTC sample test folder>`` as a process, wall clock from start to exit
   (start-up, model load, reading and classifying 200 articles), best of 3; with ``--anchor`` the same
   command of another checkout runs alternately (A B B A), and the labels printed by both are compared.
2. In a fresh process per run (A B B A with ``--anchor``): the bundled model's load (CPU ms and the
   resident memory it adds), then ``predict_many`` on 400 real VNTC articles and on 400 of the site
   simulator's articles as the crawler extracts them (title, summary, body), in batches of 64 as the
   crawl's pipeline calls it: CPU ms per article on the first pass (a fresh model: every word is new
   to its caches) and the best of 3 later passes, and one at a time. With ``--anchor`` the predictions
   of both checkouts are compared (labels, reasons, largest confidence difference).

Last run (2 cores shared by ~8 busy agents, load 7-10: CPU figures; anchor = the version before the
syllable-id path, new = after it, A B B A, two runs each):
  model load: 72/88 -> 54/63 ms CPU; resident memory it adds: 24.6 -> 18.5 MB
  VNTC, batches of 64: first pass 0.58/0.59 -> 0.43/0.48 ms, later 0.43/0.48 -> 0.18/0.19 ms per article
  simulator, batches of 64: first pass 0.62/0.60 -> 0.19/0.21 ms, later 0.52/0.59 -> 0.16/0.18 ms
  VNTC one at a time: 0.52/0.63 -> 0.30/0.34 ms per article
  predictions: labels and reasons identical on all 800, confidences within 2.6e-15

``--pipeline N``: only the crawl pipeline thread's compute per batch of 64 (predict_many, then the
near-duplicate signatures of the bodies; each body cut once where the checkout can share it), in a
thread, fresh process per run (A B B A x2 with ``--anchor``), thread CPU and page faults per article,
labels/confidences/signatures compared. Last run (load ~6, anchor = main before the shared cut, the
lane tables and the 8,192-id chunks): 2,000 articles, new 0.451/0.474/0.458/0.422 ms, anchor
0.435/0.423/0.484/0.500 ms; page faults 1.7 vs 1.1 per article; identical answers and signatures.
This process's heap never gives memory back to the kernel here; the crawl's pipeline thread did
(anchor ~25 page faults per article in a CLI crawl, new ~3), which is where most of the gain is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO.parent / "shared" / "bench"


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


def simulator_parts(n: int) -> list[tuple[str, str, str]]:
    """(title, summary, body) of ``n`` simulator articles, extracted as the crawl extracts them."""
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(BENCH))
    import newsim

    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.profile.profile import Profile

    profile = Profile.from_dict(json.loads((REPO / "benchmarks" / "newsim_profile.json").read_text()))
    site = newsim.Site(articles=n)
    parts = []
    for a in site.articles:
        art = extract(site.render(a.path)[2], "http://127.0.0.1:8000" + a.path, profile)
        parts.append((art.title, art.summary, art.body_text))
    return parts


def simulator_texts(n: int) -> list[str]:
    """The classifier's input for ``n`` simulator articles, extracted as the crawl extracts them."""
    return ["\n".join(filter(None, p)) for p in simulator_parts(n)]


def measure_pipeline(checkout: str, parts_file: str) -> dict:
    """In this (fresh) process: the crawl pipeline thread's compute per batch of 64 articles, in a
    thread as the crawl runs it (``--pipeline``): predict_many on title + summary + body and the
    near-duplicate signatures of the bodies, each body cut once where the checkout can share it."""
    import hashlib
    import resource
    import threading

    sys.path.insert(0, checkout)
    from xnews_gui.classify.model import TopicClassifier
    from xnews_gui.core.text import neardup, text

    parts = json.loads(Path(parts_file).read_text(encoding="utf-8"))
    model = TopicClassifier.load(bundled_model(Path(checkout)))
    shared = hasattr(text, "pieces")  # checkouts before the shared cut: each reads its text itself
    out: dict = {}

    def run() -> None:
        before, cpu = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time()
        answers, sigs = [], []
        for start in range(0, len(parts), 64):
            batch = parts[start:start + 64]
            texts = ["\n".join(filter(None, p)) for p in batch]
            bodies = [p[2] or "" for p in batch]
            if shared:
                cut = [text.pieces(body) for body in bodies]
                answers += model.predict_many(texts, pieces=[text.joined_pieces(p, c) for p, c in zip(batch, cut)])
                sigs += neardup.signatures(bodies, pieces=cut)
            else:
                answers += model.predict_many(texts)
                sigs += neardup.signatures(bodies)
        after = resource.getrusage(resource.RUSAGE_THREAD)
        out["ms"] = (time.thread_time() - cpu) * 1000 / len(parts)
        out["faults"] = (after.ru_minflt - before.ru_minflt) / len(parts)
        out["answers"] = [(p.label, p.confidence, p.reason) for p in answers]
        digest = hashlib.sha256()
        for sig in sigs:
            digest.update(b"-" if sig is None else neardup.to_blob(sig[0]) + str(sig[1]).encode())
        out["signatures"] = digest.hexdigest()

    thread = threading.Thread(target=run, name="xnews-crawl-pipeline")
    thread.start()
    thread.join()
    return out


def pipeline_main(args) -> int:
    runs = [("new", REPO)] + ([("anchor", Path(args.anchor).resolve())] if args.anchor else [])
    order = (runs + runs[::-1]) * 2 if args.anchor else runs * 3
    results: dict[str, list[dict]] = {name: [] for name, _ in runs}
    with tempfile.TemporaryDirectory() as tmp:
        parts_file = Path(tmp) / "parts.json"
        parts_file.write_text(json.dumps(simulator_parts(args.pipeline)), encoding="utf-8")
        for name, checkout in order:
            out = subprocess.run([sys.executable, __file__, "--pipeline-child", str(checkout), str(parts_file)],
                                 capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout))
    print(f"crawl pipeline compute, {args.pipeline} simulator articles in batches of 64, in a thread, first pass:")
    for name, _ in runs:
        print(f"  [{name}] classify + signatures: " + "/".join(f"{r['ms']:.3f}" for r in results[name])
              + " ms/article thread CPU; page faults/article " + "/".join(f"{r['faults']:.1f}" for r in results[name]))
    if args.anchor:
        new, old = results["new"][0], results["anchor"][0]
        same = sum((a[0], a[2]) == (b[0], b[2]) for a, b in zip(new["answers"], old["answers"]))
        worst = max(abs(a[1] - b[1]) for a, b in zip(new["answers"], old["answers"]))
        print(f"  labels and reasons identical on {same}/{len(new['answers'])}, confidences within {worst:.1e}; "
              f"signatures {'identical' if new['signatures'] == old['signatures'] else 'DIFFERENT'}")
    return 0


def _resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def measure(checkout: str, texts_file: str) -> dict:
    """In this (fresh) process: the checkout's model load and predictions (run as ``--child``)."""
    sys.path.insert(0, checkout)

    from xnews_gui.classify.model import TopicClassifier

    sets = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    before, cpu = _resident_mb(), time.process_time()
    model = TopicClassifier.load(bundled_model(Path(checkout)))
    out = {"load_ms": (time.process_time() - cpu) * 1000, "load_mb": _resident_mb() - before}

    def per_article(texts, batch):
        cpu = time.process_time()
        answers = [p for i in range(0, len(texts), batch) for p in model.predict_many(texts[i:i + batch])]
        return (time.process_time() - cpu) * 1000 / len(texts), answers

    for name, texts in sets.items():
        out[f"{name}_first"], answers = per_article(texts, 64)
        out[f"{name}_later"] = min(per_article(texts, 64)[0] for _ in range(3))
        out[f"{name}_answers"] = [(p.label, p.confidence, p.reason) for p in answers]
    out["vntc_one_at_a_time"] = min(per_article(sets["vntc"], 1)[0] for _ in range(2))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--anchor", help="another checkout measured side by side")
    parser.add_argument("--no-cli", action="store_true", help="skip part 1 (the CLI classify runs)")
    parser.add_argument("--pipeline", type=int, metavar="N",
                        help="only the crawl pipeline's compute (classify + near-duplicate signatures) on N simulator articles")
    parser.add_argument("--child", nargs=2, metavar=("CHECKOUT", "TEXTS"), help=argparse.SUPPRESS)
    parser.add_argument("--pipeline-child", nargs=2, metavar=("CHECKOUT", "PARTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return 0
    if args.pipeline_child:
        print(json.dumps(measure_pipeline(*args.pipeline_child)))
        return 0
    sys.path.insert(0, str(REPO))
    from xnews_gui.core.versions import versions_line

    print(versions_line(), flush=True)  # what the figures were made with
    if args.pipeline:
        return pipeline_main(args)
    sample = Path(args.data) / "vntc" / "sample"
    if not sample.is_dir():
        raise SystemExit(f"VNTC sample not found at {sample}")
    runs = [("new", REPO)] + ([("anchor", Path(args.anchor).resolve())] if args.anchor else [])
    order = runs + runs[::-1] + runs + runs[::-1] if args.anchor else runs * 3

    if not args.no_cli:
        times: dict[str, list[float]] = {name: [] for name, _ in runs}
        labels: dict[str, list[str]] = {}
        with tempfile.TemporaryDirectory() as data:
            for name, checkout in order:
                took, labels[name] = cli_run(checkout, bundled_model(checkout), sample / "Test_Full",
                                             Path(data) / name)
                times[name].append(took)
        for name, _ in runs:
            print(f"CLI classify {len(labels[name])} articles [{name}]: "
                  + ", ".join(f"{t:.2f}" for t in times[name]) + f" s (best {min(times[name]):.2f})")
        if args.anchor:
            pairs = list(zip(labels["new"], labels["anchor"]))
            print(f"CLI labels identical on {sum(a == b for a, b in pairs)}/{len(pairs)} articles")

    vntc = [p.read_text(encoding="utf-16") for p in sorted(sample.glob("*/*/*.txt"))]
    results: dict[str, list[dict]] = {name: [] for name, _ in runs}
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps({"vntc": vntc, "simulator": simulator_texts(len(vntc))}), encoding="utf-8")
        for name, checkout in order[:4] if args.anchor else runs:
            out = subprocess.run([sys.executable, __file__, "--child", str(checkout), str(texts_file)],
                                 capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout))
    rows = [("model load, ms CPU", "load_ms"), ("model load, MB resident", "load_mb"),
            ("VNTC, batches of 64, first pass, ms/article", "vntc_first"),
            ("VNTC, batches of 64, later passes, ms/article", "vntc_later"),
            ("simulator, batches of 64, first pass, ms/article", "simulator_first"),
            ("simulator, batches of 64, later passes, ms/article", "simulator_later"),
            ("VNTC, one at a time, ms/article", "vntc_one_at_a_time")]
    for title, key in rows:
        print(f"{title:52s} " + "   ".join(f"{name} " + "/".join(f"{r[key]:.2f}" for r in results[name])
                                            for name, _ in runs))
    print(f"({len(vntc)} VNTC articles of {sum(map(len, vntc)) // len(vntc)} characters on average)")
    if args.anchor:
        for name in ("vntc", "simulator"):
            new, old = results["new"][0][f"{name}_answers"], results["anchor"][0][f"{name}_answers"]
            same = sum((a[0], a[2]) == (b[0], b[2]) for a, b in zip(new, old))
            worst = max(abs(a[1] - b[1]) for a, b in zip(new, old))
            print(f"{name}: labels and reasons identical on {same}/{len(new)}, confidences within {worst:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
