"""A crawl whose start pages lead nowhere is refused with the reason (issue 10: 'Finished', 1 page, 0 articles)."""

from __future__ import annotations

from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.sink import MemorySink

from .crawl_helpers import Site, article_page, html, list_page, make_profile


def _crawl(profile, tmp_path):
    return Crawler(profile, MemorySink(), state_dir=tmp_path / "crawl",
                   options=CrawlOptions(fetch_images=False, save_raw=False)).run()


def test_an_article_as_start_page_is_refused_with_the_reason(tmp_path):
    with Site({"/a/1.htm": article_page("Một bài")}) as site:
        summary = _crawl(make_profile(site.url + "/a/1.htm"), tmp_path)
    assert summary["status"] == "refused" and summary["pages"] == 1 and summary["articles"] == 0
    assert "is an article, not a list page" in summary["refused_reason"]


def test_a_start_page_without_followed_links_is_refused(tmp_path):
    with Site({"/": html("<a href='/x/1.htm'>a link the rules do not select</a>")}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "refused"
    assert "has no link the profile's link rules follow" in summary["refused_reason"]


def test_a_start_page_with_links_is_not_refused(tmp_path):
    with Site({"/": list_page(["/a/1.htm"]), "/a/1.htm": article_page("Một bài")}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "finished" and summary["articles"] == 1 and "refused_reason" not in summary


def _errors_of(profile, tmp_path, **options):
    errors = []
    crawler = Crawler(profile, MemorySink(), state_dir=tmp_path / "crawl",
                      options=CrawlOptions(fetch_images=False, save_raw=False, **options),
                      on_event=lambda e: errors.append(e.data["message"]) if e.kind == "error" else None)
    return crawler.run(), errors


def test_a_site_that_does_not_answer_is_failed_not_finished_and_not_called_disallowed(tmp_path):
    from tests.proxy_server import dead_port

    summary, errors = _errors_of(make_profile(f"http://127.0.0.1:{dead_port()}/"), tmp_path)  # the site is down
    assert summary["status"] == "failed" and summary["pages"] == 0, summary
    assert summary["failed_reason"].startswith("nothing could be fetched: robots.txt unreachable")
    assert errors and not any("disallowed by robots.txt" in e for e in errors), errors  # nothing was disallowed
    assert any("robots.txt could not be read" in e for e in errors), errors


def test_a_start_page_that_errors_fails_the_run_with_its_reason(tmp_path):
    with Site({"/": (500, {"Content-Type": "text/html"}, b"<html><body>down for maintenance</body></html>")}) as site:
        summary, _ = _errors_of(make_profile(site.url + "/"), tmp_path, obey_robots=False)
    assert summary["status"] == "failed" and "500" in summary["failed_reason"], summary


def test_a_robots_txt_that_disallows_still_says_disallowed(tmp_path):
    with Site({"/robots.txt": (200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /\n"),
               "/": list_page(["/a/1.htm"])}) as site:
        summary, errors = _errors_of(make_profile(site.url + "/"), tmp_path)
    assert any(e.startswith("disallowed by robots.txt") for e in errors), errors
    assert summary["status"] == "failed" and "disallowed by robots.txt" in summary["failed_reason"]


def test_a_robots_txt_over_the_size_cap_keeps_the_rules_it_starts_with(tmp_path):
    """RFC 9309: the rules in the first 500 KiB hold. A longer file counted as allowing everything."""
    padded = b"User-agent: *\nDisallow: /\n" + b"# padding line\n" * 40_000
    assert len(padded) > 512 * 1024
    with Site({"/robots.txt": (200, {"Content-Type": "text/plain"}, padded),
               "/": list_page(["/a/1.htm"]), "/a/1.htm": article_page("Một bài")}) as site:
        summary, errors = _errors_of(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "failed" and "disallowed by robots.txt" in summary["failed_reason"]


def test_a_crawl_whose_every_article_page_fails_extraction_is_failed_with_the_reason(tmp_path):
    """It finished with 0 new articles and exit 0: the site had changed its template, the run said nothing."""
    pages = {f"/a/{i}.htm": html(f"<h2>Tin {i}</h2><div class='body'><p>Nội dung {i}.</p></div>") for i in range(4)}
    with Site({"/": list_page(list(pages)), **pages}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "failed" and summary["articles"] == 0
    assert summary["failed_reason"].startswith("no article could be extracted: all 4 article pages read failed")
    assert "title" in summary["failed_reason"]


def test_one_article_page_that_fails_among_good_ones_is_no_failed_crawl(tmp_path):
    pages = {f"/a/{i}.htm": article_page(f"Tin {i}") for i in range(3)}
    pages["/a/video.htm"] = html("<div class='player'>video</div>")
    with Site({"/": list_page(list(pages)), **pages}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "finished" and summary["articles"] == 3 and "failed_reason" not in summary


def test_a_topic_model_that_cannot_be_loaded_is_a_warning_of_the_crawl_s_summary(tmp_path):
    """Said in the progress log only, it was lost with --quiet and on the card: a crawl that labelled nothing."""
    from xnews_gui.classify import ModelError

    def damaged_model():
        raise ModelError("topic.npz is not a readable model file (damaged or not a model)")

    pages = {"/": list_page(["/a/1.htm"]), "/a/1.htm": article_page("Một bài")}
    with Site(pages) as site:
        summary = Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path / "crawl",
                          options=CrawlOptions(fetch_images=False, save_raw=False), classifier=damaged_model).run()
    assert summary["articles"] == 1
    assert any(w.startswith("topic model not usable (ModelError: topic.npz is not a readable model file")
               for w in summary["warnings"]), summary["warnings"]
