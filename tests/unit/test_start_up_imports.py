"""A crawl process imports only what a crawl uses: every module imported at start-up is CPU
that each `main.py crawl` pays (and the app's crawl child process too)."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import REPO

# imported by the code that needs them, not at start-up
LATER = ("feedparser", "xnews_gui.crawl.discovery", "xnews_gui.crawl.sitemaps")  # only profiles that discover
# pages through sitemaps or feeds use them


def test_the_crawl_path_does_not_import_what_only_some_profiles_or_commands_use():
    code = ("import sys\n"
            "import xnews_gui.cli.main, xnews_gui.cli.crawl, xnews_gui.services.crawl, xnews_gui.crawl.engine\n"
            f"print(' '.join(m for m in {LATER!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == []


def test_a_feed_is_still_read_when_a_profile_needs_one():
    from xnews_gui.crawl.feeds import parse_feed

    rss = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
           b'<item><link>/a-1.htm</link><title>A</title></item></channel></rss>')
    [entry] = parse_feed(rss, "https://a.vn/rss.xml")
    assert (entry.url, entry.title) == ("https://a.vn/a-1.htm", "A")
