"""A long reading session: open N articles one after another (J in the Articles tab, as a reader does)
and follow the memory of the app's process and of its web-engine helper processes.

    python benchmarks/bench_reader.py [--articles 500] [--images 3] [--corpus ../shared/data/vntc/sample]

Articles carry real Vietnamese text (the VNTC sample when it is there, else generated text) and
``--images`` distinct cached images each. RSS (app + QtWebEngineProcess children, from psutil) is
sampled every 50 opens; "growth" is the RSS after the last open minus the RSS after the first 100
(warm-up: caches, fonts, the renderer). The reader starts a fresh renderer every
ReaderView.RECYCLE_AFTER pages, so the curve is a saw-tooth: compare like with like. Target: flat
(no growth beyond the saw-tooth's height). Runs offscreen when no display is set.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xnews_gui.ui.app import _prepare_qt  # noqa: E402

_prepare_qt()

import psutil  # noqa: E402
import shiboken6  # noqa: E402
from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from xnews_gui.demo.site import make_png  # noqa: E402
from xnews_gui.paths import image_file  # noqa: E402
from xnews_gui.store import Store  # noqa: E402
from xnews_gui.ui import workers  # noqa: E402
from xnews_gui.core.versions import versions_line  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "vntc" / "sample"


def texts(corpus: Path, n: int) -> list[str]:
    files = sorted(corpus.rglob("*.txt")) if corpus.is_dir() else []
    out = []
    for path in files[:n]:
        raw = path.read_bytes()
        for enc in ("utf-16", "utf-8"):
            try:
                text = raw.decode(enc)
                break
            except UnicodeDecodeError:
                continue
        else:
            continue
        out.append(" ".join(text.split()))
    while len(out) < n:
        out.append(f"Bản tin số {len(out)}: " + " ".join(f"câu chuyện thứ {k} về thời sự hôm nay." for k in range(300)))
    return out


def fill(store: Store, n: int, images: int, corpus: Path) -> None:
    rows = []
    for k, text in enumerate(texts(corpus, n)):
        imgs = []
        for j in range(images):
            url = f"http://news.test/img/{k}-{j}.png"
            data = make_png(f"{k}-{j}")
            sha = hashlib.sha256(data).hexdigest()
            path = image_file(store.images_root, sha, "image/png")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            store.record_image(url, sha256=sha, content_type="image/png", size=len(data))
            imgs.append(f'<figure><img src="{url}" alt=""></figure>')
        paras = [text[i : i + 600] for i in range(0, min(len(text), 6000), 600)]
        body = "".join(f"<p>{p}</p>" + (imgs[i] if i < len(imgs) else "") for i, p in enumerate(paras))
        rows.append(dict(profile="bench", url=f"http://news.test/a-{k}.htm", title=f"Bài {k}: {text[:60]}",
                         summary=text[:200], body_html=body, body_text=text, content_hash=f"h{k}",
                         published=f"2026-11-{1 + k % 28:02d}T10:00:00+07:00", category="Thoi su", confidence=0.8))
    with store.writing():
        for start in range(0, len(rows), 200):
            store.models.Article.insert_many(rows[start : start + 200]).execute()


def rss_mib() -> tuple[float, float]:
    me = psutil.Process()
    own = me.memory_info().rss
    children = 0
    for child in me.children(recursive=True):
        try:
            children += child.memory_info().rss
        except psutil.Error:
            pass
    return own / 2**20, children / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--articles", type=int, default=500)
    ap.add_argument("--images", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    print(versions_line(), flush=True)  # what the figures were made with

    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        store = Store.open(Path(tmp) / "data")
        fill(store, args.articles, args.images, args.corpus)

        from xnews_gui.ui.articles_view import ArticlesView

        view = ArticlesView(store)
        view.resize(1280, 800)
        view.show()
        loop = QEventLoop()
        view.model.loaded.connect(loop.quit)
        QTimer.singleShot(10000, loop.quit)
        loop.exec()
        ready: list[int] = []
        def page_ready(article_id: int) -> None:
            ready.append(article_id)
            loop.quit()

        view.reader.pageReady.connect(page_ready)
        view.table.setFocus()
        samples, started = [], time.perf_counter()
        for k in range(1, args.articles + 1):
            before = len(ready)
            QTest.keyClick(view.table, Qt.Key.Key_J)
            while len(ready) == before or ready[-1] == 0:
                QTimer.singleShot(10000, loop.quit)
                loop.exec()
            if k % 50 == 0 or k == 1:
                app.processEvents()
                own, kids = rss_mib()
                samples.append((k, own, kids))
                print(f"{k:5d} opened  app {own:7.1f} MiB  web engine {kids:7.1f} MiB  total {own + kids:7.1f} MiB",
                      flush=True)
        elapsed = time.perf_counter() - started
        distinct = len(set(i for i in ready if i))
        warm = next((s for s in samples if s[0] >= 100), samples[0])
        last = samples[-1]
        growth = (last[1] + last[2]) - (warm[1] + warm[2])
        per100 = growth / max(1, (last[0] - warm[0]) / 100)
        guard = view.reader.guard
        print(f"\n{distinct} distinct articles opened in {elapsed:.1f} s ({1000 * elapsed / args.articles:.0f} ms each)")
        print(f"RSS after {warm[0]}: {warm[1] + warm[2]:.1f} MiB, after {last[0]}: {last[1] + last[2]:.1f} MiB, "
              f"growth {growth:+.1f} MiB ({per100:+.2f} MiB per 100 articles)")
        print(f"request guard: {guard.allowed_count} allowed / {guard.blocked_count} blocked seen, "
              f"{len(guard.allowed)} + {len(guard.blocked)} kept; page history entries: {view.reader.page.history().count()}")
        view.reader.shutdown()
        shiboken6.delete(view)
        workers.wait_all()
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
