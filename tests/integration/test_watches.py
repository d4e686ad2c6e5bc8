"""Watches from the command line: `watch add|list|show|remove`, a crawl that prints each new matching
article once (never again for an article already stored), the watch's Atom feed kept up to date, and a
webhook (a real HTTP server on 127.0.0.1) that gets each article's JSON, retried after failures, without
the crawl waiting for it."""

from __future__ import annotations

import json
import re
import threading
import unicodedata
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.etree import ElementTree as ET

from xnews_gui.demo.site import DemoSite
from xnews_gui.services.watches import feed_path
from xnews_gui.store import Store

from ..conftest import PROFILES
from ..served import ServedInThread

ATOM = "{http://www.w3.org/2005/Atom}"


class Hook(ServedInThread):
    """Records the POSTs; answers 503 to the first ``fail_first`` of each article, after ``delay_s``."""

    def __init__(self, fail_first: int = 0, delay_s: float = 0.0):
        self.posts: list[dict] = []
        self.statuses: list[int] = []
        self.fail_first, self.delay_s = fail_first, delay_s
        self.tries: dict[str, int] = {}
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                time.sleep(hook.delay_s)
                with hook.lock:
                    n = hook.tries[body["url"]] = hook.tries.get(body["url"], 0) + 1
                    status = 503 if n <= hook.fail_first else 200
                    hook.statuses.append(status)
                    if status == 200:
                        hook.posts.append(body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)


def demo_profile_file(tmp_path, demo_server) -> str:
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    data.pop("self_test")
    data["start_urls"] = [demo_server.url]
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def folded_words(text: str) -> list[str]:
    """Words as the search reads them: lower case, no diacritics, đ as d."""
    text = unicodedata.normalize("NFD", text.lower().replace("đ", "d"))
    return re.findall(r"\w+", "".join(c for c in text if not unicodedata.combining(c)))


def matching(site: DemoSite, word: str) -> set[str]:
    """The paths of the stories holding a word that starts with ``word`` (the search's prefix match)."""
    word = folded_words(word)[0]
    return {a.path for a in site.articles
            if any(w.startswith(word) for w in folded_words(" ".join((a.title, a.summary, *a.paragraphs))))}


def test_a_watch_fires_once_per_new_matching_article_with_its_feed(cli, tmp_path, data_dir, demo_server):
    assert cli("watch", "add", "nothing")[0] == 2  # no words, topic or site
    code, _, err = cli("watch", "add", "x", "--words", "a", "--webhook", "ftp://host/")
    assert code == 2 and "not an http(s) address" in err
    code, out, _ = cli("watch", "add", "bóng đá", "--words", "bong")  # without accents, as `search` reads it
    assert code == 0 and "its Atom feed:" in out
    # the topic as `articles list` and the app show it: the label "The thao" is stored
    code, out, err = cli("watch", "add", "sport", "--topic", "Thể thao", "--words", "đội")
    assert code == 0 and "topic Thể thao" in out and "warning" not in err
    code, _, err = cli("watch", "add", "mine", "--topic", "Ẩm thực")  # no such topic yet: said, kept
    assert code == 0 and "warning: no stored article has the topic 'Ẩm thực'" in err
    feed = feed_path(data_dir, "bóng đá")
    assert feed.is_file() and ET.parse(feed).getroot().findall(f"{ATOM}entry") == []  # subscribable at once
    assert cli("watch", "add", "bóng đá", "--words", "x")[0] == 2  # the name is taken

    profile = demo_profile_file(tmp_path, demo_server)
    code, out, err = cli("crawl", "--profile", profile, "--no-images", "--no-raw", "--quiet")
    assert code == 0, err
    site = DemoSite()
    wanted = matching(site, "bóng")
    base = demo_server.url.rstrip("/")
    printed = [line for line in out.splitlines() if "\u2605 watch 'bóng đá'" in line]
    assert wanted and sorted(line.rsplit(" ", 1)[-1] for line in printed) == sorted(base + p for p in wanted)
    sport = {a.path for a in site.articles if a.topic == "The thao"} & matching(site, "đội")
    assert len([line for line in out.splitlines() if "\u2605 watch 'sport'" in line]) == len(sport) > 0

    entries = ET.parse(feed).getroot().findall(f"{ATOM}entry")
    assert sorted(e.find(f"{ATOM}link").get("href") for e in entries) == sorted(base + p for p in wanted)
    code, out, _ = cli("watch", "list")
    assert f"bóng đá\twords \"bong\"\t{len(wanted)} article(s), {len(wanted)} new" in out
    assert f"sport\twords \"đội\", topic Thể thao\t{len(sport)} article(s)" in out
    assert len(cli("watch", "show", "bóng đá")[1].splitlines()) == len(wanted)

    # the same articles again (a fresh crawl fetches them all): none is new, nothing fires
    code, out, _ = cli("crawl", "--profile", profile, "--no-images", "--no-raw", "--fresh")
    assert code == 0 and "\u2605" not in out and "0 new articles" in out
    assert len(ET.parse(feed).getroot().findall(f"{ATOM}entry")) == len(wanted)
    assert cli("watch", "remove", "bóng đá")[0] == 0 and not feed.exists()
    assert cli("watch", "remove", "bóng đá")[0] == 2


def test_a_webhook_gets_each_article_once_retried_after_failures(cli, tmp_path, data_dir, demo_server):
    with Hook(fail_first=2) as hook:
        assert cli("watch", "add", "vàng", "--words", "vàng", "--webhook", hook.url)[0] == 0
        code, out, err = cli("crawl", "--profile", demo_profile_file(tmp_path, demo_server), "--no-images", "--no-raw",
                             "--quiet")
    assert code == 0, err
    wanted = {demo_server.url.rstrip("/") + p for p in matching(DemoSite(), "vàng")}
    assert wanted and sorted(p["url"] for p in hook.posts) == sorted(wanted)  # each once, after two 503s
    assert hook.statuses.count(503) == 2 * len(wanted) and all(p["watch"] == "vàng" and p["title"] for p in hook.posts)
    with Store.open(data_dir) as store:
        states = {r[0] for r in store.db.execute_sql("SELECT webhook_state FROM watch_hit").fetchall()}
    assert states == {"sent"}


def test_a_slow_webhook_does_not_hold_the_crawl(cli, tmp_path, data_dir, demo_server):
    with Hook(delay_s=1.5) as hook:
        assert cli("watch", "add", "vàng", "--words", "vàng", "--webhook", hook.url)[0] == 0
        started = time.monotonic()
        code, out, err = cli("crawl", "--profile", demo_profile_file(tmp_path, demo_server), "--no-images", "--no-raw")
        elapsed = time.monotonic() - started
    assert code == 0, err
    summary_line = next(line for line in out.splitlines() if line.strip().endswith("queue left 0"))
    crawl_s = float(summary_line.split()[0])
    hits = len(matching(DemoSite(), "vàng"))
    assert len(hook.posts) == hits
    assert crawl_s < elapsed - (hits - 1) * 1.5  # the crawl's own time does not include the posts' waits


def test_a_webhook_that_fails_is_said_by_import_items_and_one_not_sent_yet_by_the_outlet(cli, tmp_path, data_dir):
    line = {"url": "https://a.vn/vang-1.htm", "title": "Giá vàng hôm nay", "body_text": "Giá vàng tăng mạnh. " * 20}
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    with Hook(fail_first=99) as hook:
        assert cli("watch", "add", "vàng", "--words", "vàng", "--webhook", hook.url)[0] == 0
        with Store.open(data_dir) as store:  # the article and its hit, tried 4 times by earlier runs
            store.store_article(article_of(line), "a")
            hit = store.match_watches([store.db.execute_sql("SELECT max(id) FROM article").fetchone()[0]])[0]
            for _ in range(4):
                store.webhook_tried(hit.hit_id, "pending", "HTTP 503")
        empty = tmp_path / "none.jsonl"
        empty.write_text("", encoding="utf-8")
        code, out, err = cli("import-items", "--profile", "a", str(empty))  # its start sends the pending one
        assert "WARNING: the webhook of watch 'vàng' failed 5 times" in err, (out, err)
        assert "WARNING: watch webhooks: 0 sent, 1 failed (watch 'vàng': HTTP 503)" in err  # which, and why

        # a hit the outlet could not send before it closed is counted, not left unsaid
        from xnews_gui.services.watches import WatchOutlet, webhooks_line

        with Store.open(data_dir) as store:
            store.store_article(article_of(dict(line, url="https://a.vn/vang-2.htm")), "a")
            outlet = WatchOutlet(store, backoff_s=(0.0, 30.0))
            outlet.start()
            outlet(store.match_watches([store.db.execute_sql("SELECT max(id) FROM article").fetchone()[0]]))
            time.sleep(0.5)
            outlet.close(wait_s=0.2)
            assert hook.statuses and outlet.unsent == 1
            assert webhooks_line(outlet.add_to({})) == ("WARNING: watch webhooks: 0 sent, 1 not sent yet "
                                                        "(the next crawl or import sends them)")


def article_of(line: dict):
    from xnews_gui.core.extraction.extract import Article

    return Article(url=line["url"], title=line["title"], body_html=f"<p>{line['body_text']}</p>",
                   body_text=line["body_text"])
