"""The app follows a cluster crawl live: a crawl session made with a Redis URL runs the crawl's child
process as a follower, which stores the workers' items as they arrive in Redis and sends the same
signals a desktop crawl sends (the dashboard's card and chart are fed by them)."""

from __future__ import annotations

import json
import time


from xnews_gui.crawl import CrawlOptions
from xnews_gui.ui.crawl_session import CrawlSession

from ..integration.scale_helpers import RedisServer, needs_redis


def worker_item(n: int) -> str:
    """A line as a worker pushes it (scale/frontier.py, with its page's acknowledgement: the item, in JSON)."""
    return json.dumps({"url": f"http://news.test/the-thao/bai-{n}.htm", "title": f"Đội tuyển thắng trận {n}",
                       "summary": "Tóm tắt.", "image": "", "body_html": f"<p>Bóng đá hôm nay, trận {n}.</p>",
                       "body_text": f"Bóng đá hôm nay, trận {n}.", "author": "", "date": "", "topic": "The thao",
                       "confidence": 0.9, "section": "The thao", "profile": "demo"}, ensure_ascii=False)


def test_a_session_follows_a_cluster_crawl_and_stores_its_items_as_they_come(qtbot, store, demo_profile, tmp_path):
    needs_redis()
    redis = RedisServer(tmp_path)
    try:
        client, prefix = redis.client, "xnews:demo:"
        alive_until = lambda: int(time.time() * 1000) + 60_000  # noqa: E731 - a worker's heartbeat deadline
        client.zadd(prefix + "workers", {"host:1:w": alive_until()})  # one worker crawling
        client.zadd(prefix + "queue", {"1 {}": 0})
        client.rpush(prefix + "items", *[worker_item(n) for n in range(12)])
        client.hset(prefix + "stats", "pages", 20)
        session = CrawlSession(demo_profile, store, CrawlOptions(), cluster_url=redis.url)
        arrived, stats = [], []
        session.articlesStored.connect(arrived.extend)
        session.statsChanged.connect(stats.append)
        session.start()
        qtbot.waitUntil(lambda: len(arrived) == 12, timeout=30_000)
        assert session.is_active(), "the follower stopped while the worker was still crawling"
        # the stats come in their own signal, from a later drain of the child's events than the articles maybe
        qtbot.waitUntil(lambda: bool(stats) and stats[-1]["pages"] == 20 and stats[-1]["workers"] == 1,
                        timeout=10_000)
        client.rpush(prefix + "items", *[worker_item(n) for n in range(12, 20)], worker_item(3))  # one again
        client.hset(prefix + "stats", "pages", 33)
        qtbot.waitUntil(lambda: len(arrived) == 20, timeout=30_000)
        with qtbot.waitSignal(session.finished, timeout=30_000) as done:
            client.delete(prefix + "queue")
            client.zrem(prefix + "workers", "host:1:w")  # the worker left: the crawl is over
        summary = done.args[0]
    finally:
        redis.stop()
    assert summary["status"] == "finished" and summary["articles"] == 20 and summary["duplicates"] == 1
    assert summary["pages"] == 33 and session.state == "finished"
    stored = {a["id"]: a for a in store.articles_in_order()}
    assert len(stored) == 20 and {a["id"] for a in arrived} <= set(stored)
    assert all(stored[a["id"]]["title"] == a["title"] for a in arrived)


def test_the_dashboard_follows_a_cluster_with_the_mouse_and_refuses_a_wrong_url(qtbot, store, demo_profile, tmp_path):
    """Crawl tab: highlight a site, "Follow a cluster…", a URL that is not Redis is refused in the dialog
    with the reason; the workers' Redis is followed: the card, the chart and the list get its articles."""
    needs_redis()
    from PySide6.QtCore import QSettings, Qt

    from xnews_gui.ui.cluster_follow import URL_KEY
    from xnews_gui.ui.crawl_view import CrawlView

    def click(widget, pos=None):
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos or widget.rect().center())

    def type_url(text):
        field = view.follow_cluster.dialog.url
        click(field)
        field.selectAll()
        qtbot.keyClicks(field, text)

    store.save_profile(demo_profile)
    view = CrawlView(store)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    assert not view.follow_cluster.isEnabled(), "no site highlighted or ticked: nothing to follow"
    row = view.profile_list.findItems("demo", Qt.MatchFlag.MatchExactly)[0]
    click(view.profile_list.viewport(), view.profile_list.visualItemRect(row).center())
    assert view.follow_cluster.isEnabled()

    redis = RedisServer(tmp_path)
    try:
        client, prefix = redis.client, "xnews:demo:"
        client.zadd(prefix + "workers", {"host:1:w": int(time.time() * 1000) + 60_000})
        client.zadd(prefix + "queue", {"1 {}": 0})
        client.rpush(prefix + "items", *[worker_item(n) for n in range(7)])
        client.hset(prefix + "stats", "pages", 9)

        click(view.follow_cluster)
        dialog = view.follow_cluster.dialog
        qtbot.waitUntil(dialog.isVisible)
        type_url("http://127.0.0.1:6379/0")
        click(dialog.follow_button)
        assert dialog.isVisible() and dialog.problem.isVisible(), "a URL that is not Redis is not followed"
        assert "redis://" in dialog.problem.text() and "demo" not in view.sessions
        dialog.grab().save(str(tmp_path / "follow-cluster-refused.png"))
        type_url(redis.url)
        assert not dialog.problem.isVisible(), "the reason goes once the URL is edited"
        arrived: list[int] = []
        view.articlesStored.connect(arrived.extend)
        click(dialog.follow_button)
        assert not dialog.isVisible()
        session = view.sessions["demo"]
        assert session.cluster_url == redis.url
        qtbot.waitUntil(lambda: len(arrived) == 7, timeout=30_000)
        qtbot.waitUntil(lambda: view.cards["demo"].values["pages"].text() == "9", timeout=10_000)
        with qtbot.waitSignal(session.finished, timeout=30_000):
            client.delete(prefix + "queue")
            client.zrem(prefix + "workers", "host:1:w")
        view.grab().save(str(tmp_path / "follow-cluster-finished.png"))
    finally:
        redis.stop()
    assert session.state == "finished"
    assert any(articles == 7 for _rate, articles in view.chart.samples), "the chart counts the cluster's articles"
    assert "following the cluster crawl at " + redis.url in view.log.toPlainText()
    assert QSettings().value(URL_KEY) == redis.url, "the URL is remembered for the next time"
    assert len(store.articles_in_order()) == 7 and set(arrived) == {a["id"] for a in store.articles_in_order()}
