"""Reader open time while a full-corpus Retrain runs, beside idle, in the app as users run it.

    python benchmarks/bench_train_reader.py [--corpus ../shared/data/vntc] [--articles 600] [--gap-ms 150]

The main window is opened offscreen on a data folder of real articles (VNTC test files, as a crawl
stores them); a user clicks the next row of the Articles table with the mouse and waits until the
reader shows it (``pageReady``): that wait is the open time. Three phases, one after the other:

1. idle: nothing else runs (``--idle-opens`` articles);
2. Retrain clicked in the Classifier tab on the whole corpus (VNTC: 33,759 train / 50,373 test files,
   plus the stored articles), which runs in a process of its own (services/model_child.py), until
   the new model is written;
3. the anchor: the same training run the way the app ran it before, in a worker thread of the
   app's own process (``classify.retrain.retrain``), until it returns.

Target: the median and 90th percentile of phase 2 within 1.5x idle. The corpus archives are
unpacked into the data folder's cache before anything is timed (done once by the app too).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xnews_gui.ui.app import _prepare_qt  # noqa: E402

_prepare_qt()

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from xnews_gui.core.versions import versions_line  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def spin(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def store_articles(store, folder: Path, n: int) -> int:
    Article = store.models.Article
    from xnews_gui.classify import corpus

    docs = corpus.load_folder(folder)
    rows = []
    for i in range(n):
        d = docs[i % len(docs)]
        title, _, body = d.text.partition("\n")
        paragraphs = [p for p in body.split("\n") if p.strip()]
        rows.append(dict(profile="vnexpress", url=f"https://vnexpress.net/bench-{i}.html", title=title.strip(),
                         summary=paragraphs[0] if paragraphs else "", body_text=body,
                         body_html="".join(f"<p>{p}</p>" for p in paragraphs), content_hash=f"h{i}",
                         category=d.label, confidence=0.9, section_label=d.label))
    with store.writing():
        for start in range(0, len(rows), 300):
            Article.insert_many(rows[start:start + 300]).execute()
    return len(rows)


class User:
    """Clicks the next row with the mouse and times until the reader shows that article."""

    def __init__(self, window):
        self.view = window.articles
        self.row = 0
        self.ready: set[int] = set()
        self.view.reader.pageReady.connect(self.ready.add)

    def open_next(self, timeout_s: float = 20.0) -> float | None:
        view, table = self.view, self.view.table
        self.row = (self.row + 1) % view.model.rowCount()
        index = view.model.index(self.row, 1)
        table.scrollTo(index)
        aid = view.model.article_id(self.row)
        self.ready.discard(aid)
        started = time.perf_counter()
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         table.visualRect(index).center())
        loop = QEventLoop()
        shown = lambda i: loop.quit() if i == aid else None  # noqa: E731
        view.reader.pageReady.connect(shown)
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        if aid not in self.ready:
            loop.exec()
        view.reader.pageReady.disconnect(shown)
        if aid not in self.ready:
            return None
        return (time.perf_counter() - started) * 1000


def opens_while(user: User, running, gap_ms: int, limit: int = 100_000) -> list[float]:
    times = []
    while running() and len(times) < limit:
        ms = user.open_next()
        if ms is not None:
            times.append(ms)
        spin(gap_ms)
    return times


def summary(times: list[float]) -> dict:
    if not times:
        return {"opens": 0}
    ordered = sorted(times)
    return {"opens": len(times), "median_ms": round(statistics.median(ordered), 1),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1), "max_ms": round(ordered[-1], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "data" / "vntc"))
    ap.add_argument("--articles", type=int, default=600, help="stored articles (the corpus sample's training files)")
    ap.add_argument("--idle-opens", type=int, default=40)
    ap.add_argument("--gap-ms", type=int, default=150, help="the user's pause between two opens")
    ap.add_argument("--no-anchor", action="store_true", help="leave out the in-process training")
    args = ap.parse_args()
    print(versions_line(), flush=True)  # what the figures were made with

    tmp = Path(tempfile.mkdtemp(prefix="xnews-bench-train-"))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp / "settings"))
    app = QApplication.instance() or QApplication(sys.argv)
    from xnews_gui.ui import refcounts

    refcounts.start(app)  # as the app does (PySide6 6.12.0 loses references: see ui/refcounts.py)
    from xnews_gui.bundled import seed_bundled_profiles
    from xnews_gui.classify import corpus
    from xnews_gui.store import Store
    from xnews_gui.ui import workers
    from xnews_gui.ui.main_window import MainWindow

    data = tmp / "data"
    corpus_dir = Path(args.corpus)
    cache = data / "cache" / "corpora"
    t0 = time.perf_counter()
    train_dir, test_dir = corpus.find_splits(corpus_dir, cache)  # unpacked once, as the app does
    unpack_s = time.perf_counter() - t0
    store = Store.open(data)
    seed_bundled_profiles(store)
    # stored articles as a crawl would hold them; not the corpus's test files (they would be scored on)
    sample = corpus_dir / "sample" / "Train_Full" if (corpus_dir / "sample").is_dir() else train_dir
    stored = store_articles(store, sample, args.articles)
    window = MainWindow(store)
    window.resize(1280, 800)
    window.show()
    window.show_tab("articles")
    deadline = time.monotonic() + 30
    while window.articles.model.total() < stored and time.monotonic() < deadline:
        spin(50)
    spin(1500)
    user = User(window)
    report = {"corpus": str(corpus_dir), "stored_articles": stored, "unpack_s": round(unpack_s, 1),
              "cpus": os.cpu_count(), "gap_ms": args.gap_ms}

    for _ in range(10):  # warm-up: the web engine's first pages are slower, not what a reader meets after
        user.open_next()
        spin(args.gap_ms)
    idle = opens_while(user, lambda: True, args.gap_ms, limit=args.idle_opens)
    report["idle"] = summary(idle)

    # 2. Retrain clicked in the Classifier tab: the child process
    classifier = window.classifier
    classifier.set_corpus_dir(corpus_dir)
    window.show_tab("classifier")
    spin(300)
    QTest.mouseClick(classifier.retrain_button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     classifier.retrain_button.rect().center())
    window.show_tab("articles")
    started = time.perf_counter()
    child = opens_while(user, lambda: classifier.job is not None, args.gap_ms)
    report["retrain_in_child"] = {**summary(child), "seconds": round(time.perf_counter() - started, 1),
                                  "result": classifier.status.text()[:300]}

    # 3. the anchor: the same training in a worker thread of this process, as the app did before
    if not args.no_anchor:
        from xnews_gui.services.model_registry import Registry
        from xnews_gui.classify.retrain import retrain
        from xnews_gui.services.training import training_docs

        done = threading.Event()

        def old_way():
            try:
                registry = Registry(data)
                retrain(registry.load_active(), registry.active_id(), corpus_dir=corpus_dir,
                        extra_docs=training_docs(store), cache_dir=cache)
            finally:
                done.set()

        started = time.perf_counter()
        workers.run_in_background(old_way, pool=workers.crawl_pool())
        anchor = opens_while(user, lambda: not done.is_set(), args.gap_ms)
        report["retrain_in_app_thread"] = {**summary(anchor), "seconds": round(time.perf_counter() - started, 1)}

    idle_again = opens_while(user, lambda: True, args.gap_ms, limit=args.idle_opens // 2)
    report["idle_after"] = summary(idle_again)
    base = report["idle"]
    for key in ("retrain_in_child", "retrain_in_app_thread"):
        if key in report and report[key].get("opens") and base.get("opens"):
            report[key]["median_vs_idle"] = round(report[key]["median_ms"] / base["median_ms"], 2)
            report[key]["p90_vs_idle"] = round(report[key]["p90_ms"] / base["p90_ms"], 2)
    print(json.dumps(report, ensure_ascii=False, indent=1))
    window.close()
    workers.wait_all(10000)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
