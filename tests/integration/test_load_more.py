"""List pages that load more by JavaScript: the command line crawls the demo site's "Xem thêm" section and
its scrolling one completely through its render pool (60 of 60 each; 10 without loading more), and a page
that loads forever stops at its limit with a warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from xnews_gui.demo import load_more as demo_more
from xnews_gui.demo.site import DemoSite
from xnews_gui.store import Store

from ..conftest import PROFILES, REPO
from .crawl_helpers import Site

pytestmark = pytest.mark.slow


def more_profile(base: str, section: str, more: dict | None) -> dict:
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    for key in ("self_test", "topics"):
        data.pop(key, None)
    data.update(name=f"demo-{section}", start_urls=[f"{base}/{section}/"],
                links={"articles": {"kind": "css", "selector": ".list-news h3.title-news a", "allow": ["-\\d+\\.htm$"]}})
    if more is not None:
        data["more"] = more
    return data


def crawl_cli(tmp_path, profile: dict, *extra: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    path = tmp_path / f"{profile['name']}.json"
    path.write_text(json.dumps(profile, ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                           str(path), "--no-images", "--no-raw", "--fresh", "--delay", "0", *extra],
                          capture_output=True, text=True, env=env, timeout=240)
    with Store.open(data) as store:
        rows = store.articles_in_order(profile=profile["name"])
    return proc, rows


@pytest.mark.parametrize("section, more", [("xem-them", {"click": "button.xem-them"}),
                                           ("cuon", {"scroll": True, "pages": ["/cuon/$"], "settle_s": 1.5})])
def test_the_command_line_loads_more_and_takes_every_story(tmp_path, demo_server, section, more):
    base = demo_server.url.rstrip("/")
    proc, rows = crawl_cli(tmp_path, more_profile(base, section, more))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    wanted = {base + a.path for a in demo_more.stories(DemoSite())}
    assert len(wanted) == 60 and {r["url"] for r in rows} == wanted
    assert "60 new articles" in proc.stdout and "loaded more on 1 list page(s): 5 click(s) or scroll(s)" in proc.stdout
    assert "WARNING" not in proc.stdout


def test_without_loading_more_the_raw_page_gives_ten(tmp_path, demo_server):
    base = demo_server.url.rstrip("/")
    proc, rows = crawl_cli(tmp_path, more_profile(base, "xem-them", None))
    assert proc.returncode == 0 and len(rows) == demo_more.STEP


_FOREVER = """<html><body><h2>Mãi mãi</h2><ul id="list"></ul><button class="more">Xem thêm</button><script>
var n = 0;
function add() { var ul = document.getElementById('list');
  for (var i = 0; i < 10; i++) { n += 1; ul.insertAdjacentHTML('beforeend', '<li><a class="story" href="/bai-' + n + '.htm">Bài ' + n + '</a></li>'); } }
add();
document.querySelector('button.more').addEventListener('click', function () { setTimeout(add, 30); });
</script></body></html>"""


def _story(n: int) -> str:
    return (f"<html><body><h1 class='title'>Bài số {n} của trang không bao giờ hết</h1><div class='body'>"
            f"<p>Đoạn đầu của bài số {n}, đủ dài để là một bài báo thật sự trong thử nghiệm này.</p>"
            "<p>Đoạn thứ hai kể tiếp câu chuyện với nhiều chi tiết hơn nữa cho người đọc.</p></div></body></html>")


def test_a_list_page_that_loads_forever_stops_at_its_limit_with_a_warning(tmp_path):
    html = {"Content-Type": "text/html; charset=utf-8"}
    routes = {"/": (200, html, _FOREVER), "/robots.txt": (404, {}, "")}
    routes.update({f"/bai-{n}.htm": (200, html, _story(n)) for n in range(1, 201)})
    with Site(routes) as site:
        profile = {"schema": 2, "name": "forever", "start_urls": [site.url + "/"], "allowed_domains": ["127.0.0.1"],
                   "links": {"articles": {"kind": "css", "selector": "a.story"}},
                   "fields": {"title": {"kind": "css", "selector": "h1.title", "take": "text", "required": True},
                              "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}},
                   "more": {"click": "button.more", "max_loads": 3}}
        proc, rows = crawl_cli(tmp_path, profile)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len(rows) == 40  # the first 10 and three loads of 10
    warning = [line for line in proc.stdout.splitlines() if "WARNING" in line and "still loaded more" in line]
    assert warning and "stopped at the loads limit (max_loads 3)" in warning[-1], proc.stdout
    assert "1 stopped at a limit" in proc.stdout
