"""A crawl killed with -9 leaves its run 'running'; the next start marks it 'interrupted'."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from xnews_gui.store import Store

from ..conftest import REPO


def runs(db_path) -> list[tuple]:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute("SELECT status, finished, articles FROM crawl_run ORDER BY id").fetchall()
    finally:
        con.close()


def stored_articles(db_path) -> int:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute("SELECT COUNT(*) FROM article").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        con.close()


def test_a_killed_crawl_is_marked_interrupted_on_the_next_start(tmp_path, demo_profile):
    data = tmp_path / "data"
    crawl = demo_profile.crawl.__class__(**{**demo_profile.crawl.__dict__, "delay_s": 0.05, "concurrency": 1})
    profile_file = tmp_path / "demo.json"
    profile_file.write_text(demo_profile.with_(crawl=crawl).to_json(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    xnews = [sys.executable, str(REPO / "main.py"), "--data-dir", str(data)]
    db_path = data / "xnews.sqlite3"

    proc = subprocess.Popen([*xnews, "crawl", "--profile", str(profile_file), "--no-images", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if db_path.exists() and stored_articles(db_path) >= 3:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    [(status, finished, _)] = runs(db_path)
    assert (status, finished) == ("running", None)  # nobody could finish it

    listed = subprocess.run([*xnews, "articles", "list", "--limit", "1"], capture_output=True, text=True, env=env,
                            cwd=REPO, timeout=60)
    assert listed.returncode == 0, listed.stderr
    [(status, finished, _)] = runs(db_path)
    assert status == "interrupted" and finished is not None

    # a run whose process is alive (this one) is left alone
    with Store.open(data) as store:
        live = store.start_run("demo")
        assert store.mark_interrupted_runs() == 0
        assert [r.status for r in store.recent_runs()] == ["running", "interrupted"]
        store.finish_run(live, "finished", {})


def test_a_reused_pid_does_not_keep_a_dead_run_running(tmp_path):
    """The killed crawl's pid now belongs to another live process, started after the run began."""
    from datetime import datetime

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with Store.open(tmp_path) as store:
            old = store.start_run("demo")
            CrawlRun = store.models.CrawlRun
            with store.write_lock:
                CrawlRun.update(pid=other.pid, started=datetime(2026, 1, 1)).where(CrawlRun.id == old).execute()
            mine = store.start_run("demo")  # this process, started before its run: alive
            assert store.mark_interrupted_runs() == 1
            assert {r.id: r.status for r in store.recent_runs()} == {old: "interrupted", mine: "running"}
            store.finish_run(mine, "finished", {})
    finally:
        other.kill()
        other.wait(10)

