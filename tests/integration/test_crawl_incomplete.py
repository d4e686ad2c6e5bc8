"""A crawl whose body rule takes one block of stories split over three flags the body degraded and says why
("covers 33% of the article's text"), on the command line as users run it, never in silence."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.plain_site import PlainSite

from ..conftest import REPO


def test_a_crawl_of_incomplete_bodies_says_the_body_is_degraded_and_why(tmp_path):
    with PlainSite() as site:
        profile = {"schema": 2, "name": "valley", "start_urls": [site.url], "allowed_domains": ["127.0.0.1"],
                   "links": {"articles": {"kind": "css", "selector": "ul li a", "allow": ["/\\d+\\.html$"]},
                             "lists": {"kind": "xpath", "selector": "//body/div[1]/div/a | //a[.='Next page']"}},
                   "fields": {"title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
                              "body": {"kind": "xpath", "selector": "//h1/following-sibling::div[2]",
                                       "take": "html", "required": True}},
                   "crawl": {"delay_s": 0, "concurrency": 2, "max_depth": 3}}
        path = tmp_path / "valley.json"
        path.write_text(json.dumps(profile), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(tmp_path / "data"), "crawl",
                               "--profile", str(path), "--no-images"], capture_output=True, text=True, env=env,
                              timeout=120)
    out = proc.stdout + proc.stderr
    assert "WARNING: field 'body' degraded" in out, out[-2000:]
    line = next(x for x in out.splitlines() if "field 'body' degraded" in x)
    assert "of the article's text" in line and "covers " in line, line
