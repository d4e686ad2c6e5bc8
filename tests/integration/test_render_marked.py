"""A field marked render is rendered whenever its rule fails on the raw HTML, even when the main-text fallback
made the article ok (the raw page has a headline and a deck; only JavaScript writes the story); a render
that fails is an error on the page, never a stored headline-and-deck article. The command line as users run
it, with its offscreen render pool, on a site served from 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from xnews_gui.store import Store

from ..conftest import REPO
from .crawl_helpers import Site

pytestmark = pytest.mark.slow

HTML = {"Content-Type": "text/html; charset=utf-8"}
PARAGRAPHS = [f"Paragraph {n} of the story that only the page's script writes, with enough words in it to be "
              f"read as a paragraph of running text by anyone, number {n}." for n in range(1, 7)]
SCRIPT = ("<script>document.addEventListener('DOMContentLoaded', function () {"
          "var s = document.getElementById('story'); var t = %s;"
          "t.forEach(function (x) { var p = document.createElement('p'); p.textContent = x; s.appendChild(p); });"
          "});</script>" % json.dumps(PARAGRAPHS))


def _article(n: int) -> str:
    return (f"<html><head><title>Story {n} - Script Times</title></head><body><h1>Story number {n} of the day</h1>"
            f"<p class='deck'>A deck line that says what story {n} is about, above the story itself.</p>"
            f"<div id='story'></div>{SCRIPT}</body></html>")


def _profile(base: str, wait_for: str, timeout: float) -> dict:
    return {"schema": 2, "name": "script-times", "start_urls": [base + "/"], "allowed_domains": ["127.0.0.1"],
            "links": {"articles": {"kind": "css", "selector": "a.story", "allow": ["/story/\\d+\\.html$"]}},
            "fields": {"title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
                       "body": {"rules": [{"kind": "css", "selector": "div#story", "take": "html", "required": True}],
                                "expect": {"chars": [200, 100000], "words": [40, 20000], "per_page": 1}}},
            "crawl": {"delay_s": 0, "concurrency": 1, "max_depth": 1},
            "render": {"wait_for": wait_for, "timeout_s": timeout}}


def _crawl(tmp_path, profile: dict) -> tuple[subprocess.CompletedProcess, list]:
    path = tmp_path / "script-times.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    data = tmp_path / "data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                           str(path), "--no-images", "--render-pages", "1"],
                          capture_output=True, text=True, env=env, timeout=240)
    with Store.open(data) as store:
        rows = list(store.articles_in_order())
    return proc, rows


@pytest.fixture
def site():
    routes = {"/": (200, HTML, "<html><body>" + "".join(f"<a class='story' href='/story/{n}.html'>{n}</a>"
                                                        for n in (1, 2)) + "</body></html>"),
              "/robots.txt": (404, {}, "")}
    routes.update({f"/story/{n}.html": (200, HTML, _article(n)) for n in (1, 2)})
    with Site(routes) as served:
        yield served


def test_a_body_only_javascript_writes_is_rendered_although_the_fallback_made_the_article_ok(tmp_path, site):
    proc, rows = _crawl(tmp_path, _profile(site.url, "div#story", 20))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len(rows) == 2, proc.stdout[-2000:]
    for row in rows:
        assert all(p in row["body_text"] for p in PARAGRAPHS), row["body_text"][:300]
        assert "A deck line" not in row["body_text"]


def test_a_render_that_fails_is_an_error_on_the_page_not_a_stored_deck(tmp_path, site):
    proc, rows = _crawl(tmp_path, _profile(site.url, "div#story", 20) | {"render": {"wait_for": "div#never",
                                                                                    "timeout_s": 2}})
    assert rows == [], [r["body_text"][:200] for r in rows]  # not the headline and deck, stored as fine
    assert "render" in proc.stdout + proc.stderr
