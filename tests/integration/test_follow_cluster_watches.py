"""Watches hold for a cluster crawl too: `follow-cluster` stores the workers' articles and a new one that
matches a watch is told (the ★ line), kept in the watch's list and written to its Atom feed, as in a
desktop crawl. A real Redis server; the workers' items as they push them."""

from __future__ import annotations

import json
import threading
import time


from .scale_helpers import RedisServer, needs_redis


def worker_item(n: int, title: str) -> str:
    return json.dumps({"url": f"http://news.test/the-thao/bai-{n}.htm", "title": title, "summary": "Tóm tắt.",
                       "image": "", "body_html": f"<p>{title}. Bài {n}.</p>", "body_text": f"{title}. Bài {n}.",
                       "author": "", "date": "", "topic": "The thao", "confidence": 0.9, "section": "The thao",
                       "profile": "demo"}, ensure_ascii=False)


def test_follow_cluster_tells_the_watches_of_the_workers_new_articles(cli, data_dir, tmp_path):
    needs_redis()
    code, _out, err = cli("watch", "add", "bong-da", "--words", "bong da")
    assert code == 0, err
    redis = RedisServer(tmp_path)
    try:
        client, prefix = redis.client, "xnews:demo:"
        client.rpush(prefix + "items", worker_item(1, "Bóng đá: đội tuyển thắng"),
                     worker_item(2, "Quần vợt: giải mở rộng"), worker_item(3, "Lịch bóng đá tuần này"))
        client.hset(prefix + "stats", "pages", 5)
        seconds, _micros = client.time()
        client.zadd(prefix + "workers", {"host:1:w": (seconds + 2) * 1000})  # a worker whose heartbeat ends soon
        started = time.monotonic()
        code, out, err = cli("follow-cluster", "--redis", redis.url, "--profile", "demo")
    finally:
        redis.stop()
    assert time.monotonic() - started < 30
    assert code == 0, err
    assert "finished: 3 new article(s)" in out
    told = [line for line in out.splitlines() if "\u2605 watch 'bong-da'" in line]
    assert len(told) == 2 and all("bóng đá" in line.lower() for line in told), out
    code, shown, err = cli("watch", "show", "bong-da")
    assert code == 0 and shown.count("bóng đá") + shown.count("Bóng đá") == 2, shown
    feed = data_dir / "watches" / "bong-da.atom"
    assert feed.is_file() and feed.read_text(encoding="utf-8").count("<entry>") == 2


def test_import_items_tells_the_watches_of_the_new_articles_it_stores(cli, data_dir, tmp_path):
    code, _out, err = cli("watch", "add", "bong-da", "--words", "bong da")
    assert code == 0, err
    items = tmp_path / "items-1.jsonl"
    items.write_text("\n".join([worker_item(1, "Bóng đá: đội tuyển thắng"), worker_item(2, "Quần vợt mở rộng"),
                                worker_item(3, "Lịch bóng đá tuần này")]) + "\n", encoding="utf-8")
    code, out, err = cli("import-items", str(items))
    assert code == 0 and "imported 3 new article(s)" in out, err
    assert sum("\u2605 watch 'bong-da'" in line for line in out.splitlines()) == 2, out
    code, out, err = cli("import-items", str(items))  # the same lines again: nothing new, nothing told
    assert code == 0 and "imported 0 new article(s), 3 already stored" in out and "\u2605" not in out
    feed = data_dir / "watches" / "bong-da.atom"
    assert feed.is_file() and feed.read_text(encoding="utf-8").count("<entry>") == 2


def test_a_follower_ends_when_the_workers_left_requests_queued(tmp_path):
    """Workers stopped at their page limit, killed or stopped by hand leave requests queued: the follower
    waits for another worker a while, then ends 'stopped', saying how many are left (it followed forever)."""
    needs_redis()
    from xnews_gui.services.cluster import ClusterFollower
    from xnews_gui.store import Store

    redis = RedisServer(tmp_path)
    try:
        client, prefix = redis.client, "xnews:demo:"
        client.rpush(prefix + "items", worker_item(1, "Bóng đá: đội tuyển thắng"))
        client.zadd(prefix + "queue", {'7 {"url": "http://news.test/the-thao/p2.htm"}': 1,
                                       '8 {"url": "http://news.test/the-thao/p3.htm"}': 2})
        seconds, _micros = client.time()
        client.zadd(prefix + "workers", {"host:1:w": (seconds + 1) * 1000})  # its last heartbeat
        with Store.open(tmp_path / "data") as store:
            follower = ClusterFollower("demo", redis.url, store)
            follower.abandoned_s = 1.0
            result = []
            thread = threading.Thread(target=lambda: result.append(follower.run()))
            thread.start()
            thread.join(15)
            ended = not thread.is_alive()
            follower.stop()
            thread.join(10)
        assert ended, "the follower went on following workers that had left"
        assert client.zcard(prefix + "queue") == 2  # kept for the next workers
    finally:
        redis.stop()
    summary = result[0]
    assert summary["status"] == "stopped" and summary["articles"] == 1
    assert summary["stopped_reason"].startswith("the workers left with 2 request(s) still queued")


def test_a_follower_ended_with_ctrl_c_says_what_its_webhooks_did(data_dir, tmp_path):
    """Ctrl+C is the usual way to end a follower: its summary still says the webhook it could not send."""
    import signal
    import subprocess
    import sys

    from tests.integration.scale_helpers import REPO, repo_env
    from tests.integration.test_watches import Hook

    needs_redis()
    redis = RedisServer(tmp_path)
    main = [sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir)]
    try:
        with Hook(fail_first=99) as hook:
            added = subprocess.run(main + ["watch", "add", "bong-da", "--words", "bong da", "--webhook", hook.url],
                                   capture_output=True, text=True, timeout=60, env=repo_env())
            assert added.returncode == 0, added.stderr
            redis.client.rpush("xnews:demo:items", worker_item(1, "Bóng đá: đội tuyển thắng"))
            follower = subprocess.Popen(main + ["follow-cluster", "--redis", redis.url, "--profile", "demo"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=repo_env())
            deadline = time.monotonic() + 30
            while not hook.statuses and time.monotonic() < deadline:  # the item stored, its webhook tried once
                time.sleep(0.1)
            follower.send_signal(signal.SIGINT)
            out, err = follower.communicate(timeout=60)
    finally:
        redis.stop()
    assert hook.statuses and follower.returncode == 1, (out, err)
    assert "stopped: 1 new article(s)" in out
    assert "WARNING: watch webhooks: 0 sent" in err and ("not sent yet" in err or "failed" in err), err
