"""The reader: cached images, no remote request, and stored payloads that run nothing."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEngineScript

from xnews_gui.demo.site import make_png
from xnews_gui.paths import image_file
from xnews_gui.ui.reader import ReaderView

pytestmark = pytest.mark.gui
PNG = make_png("reader-test")


class CountingServer:
    """A web server that only counts: any hit means the reader went to the network."""

    def __init__(self):
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="counting-server", daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def web():
    server = CountingServer()
    yield server
    server.stop()


def cache_image(store, url: str, data: bytes = PNG) -> None:
    sha = hashlib.sha256(data).hexdigest()
    path = image_file(store.images_root, sha, "image/png")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    store.record_image(url, sha256=sha, content_type="image/png", size=len(data))


def store_raw(store, **fields) -> int:
    """Insert an article as is (no sanitising): the reader must not trust the store."""
    row = dict(profile="t", url="http://news.test/a-1.htm", title="T", summary="", body_html="", body_text="x",
               content_hash="h")
    row.update(fields)
    with store.write_lock:
        return store.models.Article.insert(**row).execute()


def run_js(qtbot, page, script: str):
    """Run a probe in the application world (the page's own scripts stay disabled)."""
    box = []
    page.runJavaScript(f"JSON.stringify({script})", QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return json.loads(box[0])


def show(qtbot, reader: ReaderView, article_id: int) -> None:
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == article_id):
        reader.show_article(article_id)


def test_reader_shows_cached_images_without_any_remote_request(qtbot, store, data_dir, web):
    lead, inline, missing = f"{web.url}/lead.png", f"{web.url}/inline.png", f"{web.url}/never-cached.png"
    cache_image(store, lead)
    cache_image(store, inline, make_png("inline"))
    aid = store_raw(store, title="Tin mới: Hà Nội", summary="Tóm tắt", image_url=lead, author="Quốc Bảo",
                    published="2026-11-28T14:55:00+07:00", category="Thời sự", confidence=0.81,
                    body_html=f'<p>Đoạn một.</p><figure><img src="{inline}" alt="a"></figure>'
                              f'<p>Đoạn hai.</p><img src="{missing}">')
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.resize(900, 700)
    reader.show()
    reader.guard.clear()
    show(qtbot, reader, aid)

    qtbot.waitUntil(lambda: run_js(qtbot, reader.page, "[...document.images].every(i => i.complete)") is True,
                    timeout=5000)
    images = run_js(qtbot, reader.page, "[...document.images].map(i => [i.src, i.naturalWidth])")
    assert len(images) == 3
    by_kind = {("missing" if "missing" in src else "cached"): w for src, w in images}
    assert all(src.startswith("xnews://reader/") for src, _ in images)
    assert all(w > 0 for _, w in images), images  # cached ones and the placeholder all decoded
    text = run_js(qtbot, reader.page, "document.body.innerText")
    assert "Tin mới: Hà Nội" in text and "Quốc Bảo" in text and "Thời sự" in text and "Đoạn hai." in text
    assert by_kind
    assert web.hits == []  # nothing reached the network
    assert reader.guard.blocked == []
    assert any("/img/" in u for u in reader.guard.allowed)
    qtbot.waitUntil(lambda: store.get_article(aid).read, timeout=5000)  # opening marks it read (in the background)


def test_request_guard_blocks_remote_loads(qtbot, store, data_dir, web):
    """Any page on the reader's profile, even one that tries, cannot reach the network."""
    from PySide6.QtWebEngineCore import QWebEnginePage

    reader = ReaderView(store)
    qtbot.addWidget(reader)
    page = QWebEnginePage(reader.page.profile(), reader)
    reader.guard.clear()
    page.load(QUrl(f"{web.url}/page.html"))
    qtbot.waitUntil(lambda: f"{web.url}/page.html" in reader.guard.blocked, timeout=10000)
    qtbot.wait(200)
    assert web.hits == []
    shiboken6.delete(page)  # a page goes before the profile it uses


PAYLOAD = (
    '<p>Hello</p><script>document.title="PWNED"</script>'
    '<img src="x" onerror="document.title=&quot;PWNED&quot;">'
    '<svg onload="document.title=&quot;PWNED&quot;"></svg>'
    '<a id="l" href="javascript:document.title=&quot;PWNED&quot;">click</a>'
    '<iframe src="javascript:parent.document.title=&quot;PWNED&quot;"></iframe>'
    '<body onload="document.title=&quot;PWNED&quot;">'
)


def test_probe_does_fire_when_javascript_runs(qtbot):
    """The control: in an ordinary page the payload does change the title, so the next test can fail."""
    from PySide6.QtWebEngineWidgets import QWebEngineView

    view = QWebEngineView()
    qtbot.addWidget(view)
    view.setHtml("<title>Safe</title>" + PAYLOAD, QUrl("http://localhost/"))
    qtbot.waitUntil(lambda: view.page().title() == "PWNED", timeout=10000)


def test_stored_script_payloads_run_nothing_in_the_reader(qtbot, store, data_dir, web):
    aid = store_raw(store, title="Safe", body_html=PAYLOAD + f'<img src="{web.url}/p.png" onerror="x()">')
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.show()
    show(qtbot, reader, aid)
    qtbot.mouseClick(reader.view.focusProxy(), __import__("PySide6.QtCore").QtCore.Qt.MouseButton.LeftButton)
    qtbot.wait(300)  # give any handler a chance to fire
    assert reader.page.title() == "Safe"
    assert run_js(qtbot, reader.page, "document.title") == "Safe"
    assert run_js(qtbot, reader.page, "document.querySelectorAll('script,iframe,svg,[onerror],[onload]').length") == 0
    assert run_js(qtbot, reader.page, "document.querySelectorAll('a[href^=javascript]').length") == 0
    assert web.hits == []


def test_topic_shown_in_vietnamese_and_corrections_stored_as_labels(qtbot, store, data_dir):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    aid = store_raw(store, title="Tiêm chủng", body_html="<p>Bài về sức khỏe.</p>", category="Suc khoe", confidence=0.8)
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.resize(900, 600)
    reader.show()
    show(qtbot, reader, aid)
    text = run_js(qtbot, reader.page, "document.querySelector('.category').innerText")
    assert "Sức khỏe" in text and "80%" in text
    box = reader.category
    assert box.currentText() == "Sức khỏe"
    assert box.itemData(box.findText("Thể thao")) == "The thao"
    assert box.findText("The thao") == -1  # only display names are offered

    # pick "Thể thao" from the drop-down list with the mouse
    from PySide6.QtCore import QPoint

    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(box.width() - 8, box.height() // 2))  # the arrow
    popup = box.view()
    qtbot.waitUntil(popup.isVisible, timeout=3000)
    index = popup.model().index(box.findText("Thể thao"), 0)
    popup.scrollTo(index)
    qtbot.wait(600)  # a combo box ignores a release that comes right after its popup opened
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        QTest.mouseClick(popup.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         popup.visualRect(index).center())
    row = store.get_article(aid)
    assert (row.user_label, row.category) == ("The thao", "The thao")
    assert run_js(qtbot, reader.page, "document.querySelector('.category').innerText") == "Thể thao"
    assert box.currentText() == "Thể thao"

    # or type a topic's name (here without its diacritics: QTest types Latin-1 only) and press Enter
    box.lineEdit().selectAll()
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        QTest.keyClicks(box.lineEdit(), "phap luat")
        QTest.keyClick(box.lineEdit(), Qt.Key.Key_Return)
    assert store.get_article(aid).user_label == "Phap luat"
    assert box.currentText() == "Pháp luật"


def test_the_request_guard_keeps_a_bounded_record(qtbot, store, monkeypatch):
    from xnews_gui.ui.offline_web import RequestGuard

    monkeypatch.setattr(RequestGuard, "KEEP", 5)
    urls = [f"http://news.test/img/{k}.png" for k in range(12)]
    for k, url in enumerate(urls):
        cache_image(store, url, make_png(f"bounded-{k}"))
    aid = store_raw(store, title="Many images", body_html="".join(f'<p>{k}</p><img src="{u}">' for k, u in enumerate(urls)))
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.show()
    show(qtbot, reader, aid)
    qtbot.waitUntil(lambda: run_js(qtbot, reader.page, "[...document.images].every(i => i.complete && i.naturalWidth > 0)"),
                    timeout=5000)
    assert reader.guard.allowed_count >= 10  # the page and its images were seen (some may come from cache)...
    assert len(reader.guard.allowed) == 5  # ...and only the last few are remembered
    assert reader.guard.blocked == [] and reader.guard.blocked_count == 0


def renderer_processes() -> int:
    import psutil

    return len(psutil.Process().children(recursive=True))


def test_a_long_session_hands_over_to_a_fresh_page_and_renderer(qtbot, store, monkeypatch):
    """Each navigation leaves memory behind in the renderer: after RECYCLE_AFTER pages a new page
    (new profile, new renderer) takes over, still locked down, and the old renderer goes."""
    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWebEngineCore import QWebEngineSettings

    monkeypatch.setattr(ReaderView, "RECYCLE_AFTER", 3)
    ids = [store_raw(store, url=f"http://news.test/r-{k}.htm", title=f"Bài số {k}", content_hash=f"r{k}",
                     body_html=f"<p>Nội dung {k}</p>") for k in range(9)]
    reader = ReaderView(store)  # its empty page is the first load
    qtbot.addWidget(reader)
    reader.show()
    pages, guards = [reader.page], [reader.guard]
    show(qtbot, reader, ids[8])  # another article (the same one again is not drawn again)
    processes = renderer_processes()
    for k, aid in enumerate(ids[:8]):
        show(qtbot, reader, aid)
        assert run_js(qtbot, reader.page, "document.querySelector('h1').innerText") == f"Bài số {k}"
        if reader.page is not pages[-1]:
            pages.append(reader.page)
            guards.append(reader.guard)
    assert len(pages) == 4 and len(set(map(id, guards))) == 4  # 1 + 9 article loads, 3 per page
    assert not reader.page.settings().testAttribute(QWebEngineSettings.WebAttribute.JavascriptEnabled)
    assert reader.guard.allowed_count >= 1 and reader.guard.blocked_count == 0
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not any(shiboken6.isValid(p) for p in pages[:-1])  # the old pages (and their profiles) are gone
    qtbot.waitUntil(lambda: renderer_processes() <= processes, timeout=10000)  # and so are their renderers


def test_showing_reads_nothing_on_the_gui_thread_and_the_newest_request_wins(qtbot, store):
    """The article is read and its page built in a worker (a crawl's threads would make the GUI thread
    wait for the GIL at every SQL step); of requests made meanwhile only the newest is shown, and a
    clear() made after a request is not undone when that request's article arrives."""
    ids = [store_raw(store, url=f"http://news.test/q-{k}.htm", title=f"Tin số {k}", content_hash=f"q{k}",
                     body_html=f"<p>Đoạn {k}</p>") for k in range(4)]
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.show()
    shown: list[int] = []
    reader.pageReady.connect(shown.append)
    statements: list[str] = []
    store.db.connection().set_trace_callback(statements.append)  # this (GUI) thread's connection
    try:
        with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == ids[2]):
            for aid in ids[:3]:  # three quick J presses, each before the last one's page is ready
                reader.show_article(aid)
            assert reader.asked_id == ids[2] and reader.article is None
        assert reader.article["id"] == ids[2]
        assert run_js(qtbot, reader.page, "document.querySelector('h1').innerText") == "Tin số 2"
        assert ids[1] not in shown  # superseded before its page was built: never shown

        reader.show_article(ids[3])
        reader.clear("Cleared.")  # e.g. a search excluded the article meanwhile
        qtbot.wait(300)
        qtbot.waitUntil(lambda: not reader._preparing, timeout=5000)
        assert reader.article is None and reader.asked_id is None and ids[3] not in shown
    finally:
        store.db.connection().set_trace_callback(None)
    assert statements == []
    qtbot.waitUntil(lambda: store.get_article(ids[2]).read, timeout=5000)  # marked read, in the background


def test_the_same_article_asked_again_keeps_the_readers_place_and_a_changed_one_is_drawn(qtbot, store):
    """A crawl's batch that re-reads the article being read (the main window asks the reader again) leaves the
    page as it is, scrolled where the reader is; a changed text is drawn."""
    long_body = "".join(f"<p>Đoạn văn số {k} của một bài dài, đủ để cuộn trang xuống.</p>" for k in range(80))
    aid = store_raw(store, title="Bài dài", body_html=long_body)
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.resize(700, 400)
    reader.show()
    show(qtbot, reader, aid)
    loads = reader.loads
    run_js(qtbot, reader.page, "(window.scrollTo(0, 900), window.scrollY)")
    qtbot.waitUntil(lambda: run_js(qtbot, reader.page, "window.scrollY") >= 800, timeout=5000)

    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        reader.show_article(aid, mark_read=False)
    assert reader.loads == loads
    assert run_js(qtbot, reader.page, "window.scrollY") >= 800

    with store.write_lock:
        store.models.Article.update(body_html="<p>Bản sửa: một đoạn mới.</p>").where(
            store.models.Article.id == aid).execute()
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        reader.show_article(aid, mark_read=False)
    assert reader.loads == loads + 1
    assert "Bản sửa" in run_js(qtbot, reader.page, "document.body.innerText")


def test_an_article_asked_again_after_going_back_from_it_is_drawn_again(qtbot, store):
    """Back (the page's context menu) shows the previous article without the reader asking: asking for the
    article that was on screen before must draw it, not trust that it still shows."""
    from PySide6.QtWebEngineCore import QWebEnginePage

    first = store_raw(store, url="http://news.test/b-1.htm", title="Alpha", content_hash="b1", body_html="<p>Một</p>")
    second = store_raw(store, url="http://news.test/b-2.htm", title="Beta", content_hash="b2", body_html="<p>Hai</p>")
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.show()
    show(qtbot, reader, first)
    show(qtbot, reader, second)
    with qtbot.waitSignal(reader.page.loadFinished, timeout=15000):
        reader.page.triggerAction(QWebEnginePage.WebAction.Back)
    assert run_js(qtbot, reader.page, "document.querySelector('h1').innerText") == "Alpha"
    loads = reader.loads
    show(qtbot, reader, second)
    assert reader.loads == loads + 1
    assert run_js(qtbot, reader.page, "document.querySelector('h1').innerText") == "Beta"


def test_an_article_is_shown_in_the_language_it_is_written_in(qtbot, store):
    """The page says its language, so that the web engine draws Han characters with the Japanese forms of a
    Japanese article (not the Chinese ones) and hyphenates and reads aloud in that language."""
    japanese = "日本の首相は十三日、東京で記者会見を開き、新しい経済対策を発表した。" * 3
    ja = store_raw(store, url="http://news.test/ja.htm", title="経済対策", body_text=japanese,
                   body_html=f"<p>{japanese}</p>")
    unknown = store_raw(store, url="http://news.test/short.htm", title="Breaking", body_text="Short.",
                        body_html="<p>Short.</p>")
    reader = ReaderView(store)
    qtbot.addWidget(reader)
    reader.resize(900, 700)
    reader.show()
    show(qtbot, reader, ja)
    assert run_js(qtbot, reader.page, "document.documentElement.lang") == "ja"
    show(qtbot, reader, unknown)
    assert run_js(qtbot, reader.page, "document.documentElement.lang") == ""  # not plain: no tag, not a guess


def test_the_topic_box_says_what_it_is_for_before_an_article_is_open(qtbot, store):
    """It showed the placeholder "category" (a programmer's word) with no article open."""
    from xnews_gui.ui.reader import NO_ARTICLE

    reader = ReaderView(store)
    qtbot.addWidget(reader)
    assert reader.category.lineEdit().placeholderText() == NO_ARTICLE and not reader.category.isEnabled()
    aid = store_raw(store, url="http://news.test/plain.htm", title="Plain", body_text="x" * 10,
                    body_html="<p>text</p>")
    reader.show()
    show(qtbot, reader, aid)
    assert reader.category.lineEdit().placeholderText() != "category"
