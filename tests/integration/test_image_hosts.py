"""Images on a host of their own (a CDN) whose robots.txt cannot be read: a warning that its images are not
fetched, not a crawl error (a newcomer's first crawl said "1 error" for it), and the card and the CLI say
how many images were not fetched (two 404 images were not reported at all)."""

from __future__ import annotations

import socket

from tests.integration.crawl_helpers import Site, html, list_page, make_profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.services.crawl import start_crawl


def test_an_image_hosts_robots_txt_failure_is_a_warning_and_missing_images_are_counted(store):
    with socket.socket() as sock:  # an image host nobody answers on ("localhost" is not the profile's domain)
        sock.bind(("127.0.0.1", 0))
        cdn = f"http://localhost:{sock.getsockname()[1]}"
    page = html(f"<h1 class='title'>A story</h1><div class='body'><img src='{cdn}/lead.jpg'><p>Text of the "
                "story.</p><img src='/missing.png'></div>")
    with Site({"/": list_page(["/a.htm"]), "/a.htm": page}) as site:
        profile = make_profile(site.url.rstrip("/") + "/")
        events = []
        summary = start_crawl(profile, store, CrawlOptions(fetch_images=True), events.append, classifier=None).run()
    assert summary["articles"] == 1 and summary["errors"] == 0, summary.get("errors_by_kind")
    assert summary["image_errors"] == 2 and summary["images"] == 0
    warnings = [e.data["message"] for e in events if e.kind == "log" and e.data.get("warning")]
    assert any("robots.txt of localhost unreachable" in w and "images are not fetched" in w for w in warnings)

