"""The crawl's child process (services/crawl_child.py) on its own: a real process, a real demo
server on 127.0.0.1, a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess

from xnews_gui.crawl.fetcher import FetchLimits
from xnews_gui.crawl.options import CrawlOptions
from xnews_gui.services.crawl_child import child_command, options_from_dict, options_to_dict


def spawn(stderr=None) -> subprocess.Popen:
    program, args, env = child_command()
    return subprocess.Popen([program, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                            env=dict(os.environ, **env))


def request(data_dir, profile, **options) -> bytes:
    opts = options_to_dict(CrawlOptions(fetch_images=False, save_raw=False, **options))
    return json.dumps({"data_dir": str(data_dir), "profile": profile.to_dict(), "options": opts,
                       "classifier": "none"}).encode() + b"\n"


def test_options_cross_the_pipe_unchanged():
    options = CrawlOptions(max_pages=7, concurrency=3, delay_s=0.25, topics=("the-thao",), contact="me@example.org",
                           limits=FetchLimits(max_image_bytes=1234, retries=0), fetch_images=False)
    assert options_from_dict(json.loads(json.dumps(options_to_dict(options)))) == options


def test_a_bad_request_gets_one_line_saying_why():
    child = spawn()
    out, _ = child.communicate(b"{not json\n", timeout=60)
    lines = out.decode().splitlines()
    assert child.returncode == 2 and len(lines) == 1
    assert json.loads(lines[0])["kind"] == "failed" and "JSONDecodeError" in json.loads(lines[0])["data"]["message"]


def test_the_crawl_stops_when_the_app_goes_away(demo_profile, store):
    """stdin closing (the app quit or crashed) stops the crawl; the run is recorded as stopped."""
    child = spawn()
    child.stdin.write(request(store.root, demo_profile, delay_s=0.05, concurrency=1))
    child.stdin.flush()
    kinds = []
    for line in child.stdout:
        kinds.append(json.loads(line)["kind"])
        if kinds[-1] == "article":
            break
    child.stdin.close()
    rest = [json.loads(line) for line in child.stdout]
    assert child.wait(timeout=60) == 0
    assert rest[-1]["kind"] == "done" and rest[-1]["data"]["status"] == "stopped"
    assert store.recent_runs(1)[0].status == "stopped"
    assert 0 < store.count_articles() < 72


def test_a_crawl_that_ends_by_itself_exits_cleanly_while_the_app_still_listens(demo_profile, store, tmp_path):
    """The command reader blocked on the open stdin must not abort the child's exit."""
    errors = (tmp_path / "stderr.txt").open("wb")
    child = spawn(stderr=errors)
    child.stdin.write(request(store.root, demo_profile, max_pages=3, delay_s=0, concurrency=1))
    child.stdin.flush()
    events = [json.loads(line) for line in child.stdout]  # until the child closes its end
    assert child.wait(timeout=60) == 0
    child.stdin.close()
    errors.close()
    assert events[-1]["kind"] == "done" and events[-1]["data"]["status"] in ("limit", "finished")
    assert "Fatal Python error" not in (tmp_path / "stderr.txt").read_text()
    assert store.recent_runs(1)[0].status == events[-1]["data"]["status"]
