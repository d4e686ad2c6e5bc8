"""A store that stays true to its sites, on real servers: the simulator one revision later (the CLI as a
process), a 2009-style site without validators, and scripted answers for the edges."""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path

import pytest

from tests.conftest import import_newsim
from tests.old_site import OldSite, old_site_profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.crawl.fetcher import Fetcher
from xnews_gui.services.crawl import start_crawl
from xnews_gui.store.queries import ArticleFilter

from .crawl_helpers import Site, answer, article_page, list_page, make_profile

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_revisit", REPO / "benchmarks" / "bench_revisit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_simulator_one_revision_later_as_the_issue_measured_it(tmp_path):
    """Done when: at --revision 1 a plain crawl stores the new, replaces the 30 updated and downloads at
    most 10% of the 258 unchanged again; --revisit marks the 12 gone, again at most 10% downloaded."""
    import_newsim()  # skips with the reason when ../shared/bench is not there
    result = _bench().run(REPO, tmp_path, articles=300, seed=1)
    assert result["site"] == {"unchanged": 258, "updated": 30, "gone": 12, "new": 19}
    plain, revisit = result["plain"], result["revisit"]
    assert plain["exit"] == 0 and revisit["exit"] == 0, (plain["stderr"], revisit["stderr"])
    assert plain["store"]["new_stored"] == 19  # the 20th new story is gone already (410)
    assert plain["store"]["updated_replaced"] == 30 and plain["store"]["earlier_versions"] == 30
    assert plain["fetched"].get("unchanged", {}).get("200", 0) <= 25  # at most 10% of 258 in full
    assert revisit["store"]["gone_marked"] == 12  # gone_at set, the text still there
    assert revisit["store"]["articles"] == 319  # nothing deleted
    assert revisit["fetched"].get("unchanged", {}).get("200", 0) <= 25
    assert revisit["fetched"]["unchanged"].get("304", 0) == 258  # asked, answered "not modified"
    assert revisit["fetched"]["gone"] == {"410": 24}  # each gone one asked twice


def crawl(store, profile, **options):
    options.setdefault("fetch_images", False)
    events = []
    handle = start_crawl(profile, store, CrawlOptions(**options), events.append, classifier=None)
    return handle.run(), events


def test_a_2009_site_is_read_once_per_crawl_and_its_known_stories_are_counted(store):
    """Issue 23: each crawl fetched / and the first section twice (the feed lookup, then the link rules;
    index.php is the folder's index page, so the section came back as /?cat=1) and robots.txt twice;
    the sitemap's 14 stories, all stored, were '0 already known' on the crawl's card."""
    with OldSite() as site:
        profile = old_site_profile(site)
        first, _ = crawl(store, profile)
        log = site.take_log()
        paths = [p for _, p in log]
        assert first["articles"] == 14 and first["status"] == "finished"
        assert sorted(paths) == sorted(set(paths)), "a page fetched twice in one crawl"
        assert paths.count("/robots.txt") == 1 and "/" in paths and "/index.php?cat=1" in paths
        assert "/?cat=1" not in paths  # the start page discovery read is the one the link rules read
        time.sleep(2.1)  # its CMS dates every sitemap entry "now": seconds later they would all look newer
        again, events = crawl(store, profile)
        paths = [p for _, p in site.take_log()]
        assert again["known_skipped"] >= 14 and again["articles"] == 0
        assert again["revisited"] == 0 and not any(p.startswith("/tin.php") for p in paths)
        assert sorted(paths) == sorted(set(paths))
        message = next(e.data["message"] for e in events if e.kind == "log" and "discovery:" in e.data["message"])
        assert "1 giving every page the same date" in message


def test_revisit_all_on_a_site_without_validators_updates_and_marks_gone(store):
    with OldSite() as site:
        profile = old_site_profile(site)
        crawl(store, profile)
        site.take_log()
        story = store.article_id_for_url(f"{site.url}tin.php?id=101")
        before = store.get_article(story)
        site.revise(updated={101: "Cập nhật lúc 14:05: đường đã thông xe."}, gone={102})
        summary, events = crawl(store, profile, revisit=True, gone_confirm_s=0.3)
        assert summary["updated"] == 1 and summary["gone"] == 1 and summary["unchanged"] == 12
        after = store.get_article(story)
        assert after.title.endswith("(đã cập nhật)") and "thông xe" in after.body_text and after.updated_at
        [earlier] = store.article_versions(story)
        assert earlier.title == before.title and earlier.body_text == before.body_text
        gone = store.get_article(store.article_id_for_url(f"{site.url}tin.php?id=102"))
        assert gone.gone_at is not None and gone.body_text  # marked, kept, readable
        assert [i for _, i in store.ordered_keys(ArticleFilter(gone_only=True))] == [gone.id]
        asked = [p for s, p in site.take_log() if p == "/tin.php?id=102"]
        assert len(asked) == 2  # asked twice: one 404 is not enough
        assert any(e.kind == "updated" and e.data["id"] == story for e in events)
        # the page log keeps the updated copy's raw page (re-extraction reads it)
        assert store.db.execute_sql("SELECT raw_path FROM page WHERE url = ?", (after.url,)).fetchone()[0]


def test_revisits_are_conditional_and_a_304_costs_no_parse(store):
    seen = {"etag": 'W/"42-1"', "lm": "Tue, 02 Jan 2024 10:00:00 GMT"}

    def story(handler):
        if handler.headers.get("If-None-Match") == seen["etag"]:
            handler.send_response(304)
            handler.send_header("ETag", seen["etag"])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        status, headers, body = article_page("Tin một", "Nội dung đầy đủ của bài viết.")
        body = body.encode()
        handler.send_response(status)
        for k, v in dict(headers, ETag=seen["etag"], **{"Last-Modified": seen["lm"]}).items():
            handler.send_header(k, v)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    routes = {"/": (200, {"Content-Type": "text/html"}, "<html><body><a class='art' href='/a-1.htm'>a</a></body></html>"),
              "/a-1.htm": story}
    with Site(routes) as site:
        profile = make_profile(site.url + "/")
        crawl(store, profile)
        copy = store.stored_copies([site.url + "/a-1.htm"])[site.url + "/a-1.htm"]
        assert (copy["etag"], copy["last_modified"]) == (seen["etag"], seen["lm"])
        assert copy["modified_at"] == "2024-01-02T10:00:00+00:00"
        raw_before = store.db.execute_sql("SELECT raw_path FROM page WHERE url LIKE '%a-1.htm'").fetchone()[0]
        site.log.clear()
        summary, _ = crawl(store, profile, revisit=True)
        asked = [h for _, p, h in site.log if p == "/a-1.htm"]
        assert len(asked) == 1 and asked[0]["If-None-Match"] == seen["etag"]
        assert asked[0]["If-Modified-Since"] == seen["lm"]
        assert summary["not_modified"] == 1 and summary["article_pages"] == 0
        assert all(rate is None for rate in summary["fill_rate"].values())  # nothing was extracted
        raw_after = store.db.execute_sql("SELECT raw_path FROM page WHERE url LIKE '%a-1.htm'").fetchone()[0]
        assert raw_after == raw_before  # nothing written for a 304


def test_a_passing_error_is_not_gone_and_one_404_alone_is_not_either(store):
    answers = {"next": []}

    def story(handler):
        status = answers["next"].pop(0) if answers["next"] else 200
        body = (article_page("Tin hai", "Bài vẫn còn.")[2] if status == 200 else "<html>lỗi</html>").encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    routes = {"/": (200, {"Content-Type": "text/html"}, "<html><body><a class='art' href='/b-2.htm'>b</a></body></html>"),
              "/b-2.htm": story}
    with Site(routes) as site:
        profile = make_profile(site.url + "/")
        crawl(store, profile)
        url = site.url + "/b-2.htm"
        answers["next"] = [503, 503, 503]  # a server error, its retries too: a passing error
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert summary["gone"] == 0 and store.stored_copies([url])[url]["gone"] is False
        answers["next"] = [404]  # one 404, then the page answers again: not gone
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert summary["gone"] == 0 and summary["unchanged"] == 1
        answers["next"] = [404, 404]  # twice: gone
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert summary["gone"] == 1 and store.stored_copies([url])[url]["gone"] is True


@pytest.mark.slow
def test_the_pass_budget_and_the_schedule_bound_revisits(tmp_path, store):
    """A newer lastmod is a revisit only within the pass's budget; a watched article is revisited when its
    interval (adapted by what it showed) has run out."""
    import subprocess
    import sys

    newsim = import_newsim()
    data = json.loads((REPO / "benchmarks" / "newsim_profile.json").read_text())
    from xnews_gui.core.profile.profile import Profile

    def serve(revision, port=0):
        proc = subprocess.Popen([sys.executable, newsim.__file__, "--port", str(port), "--articles", "100",
                                 "--extra-kb", "4", "--revision", str(revision)], stdout=subprocess.PIPE, text=True)
        return proc, proc.stdout.readline().split()[1]

    proc, url = serve(0)
    try:
        data.update(start_urls=[url], discovery=["sitemap", "links"])
        data["crawl"].update(concurrency=4, revisit_budget=4, article_revisit_min=0.02)  # due after 1.2 s
        profile = Profile.from_dict(data)
        first, _ = crawl(store, profile)
        assert first["articles"] == 100
    finally:
        proc.terminate()
        proc.wait(10)
    proc, _ = serve(1, url.rsplit(":", 1)[1].strip("/"))
    try:
        summary, _ = crawl(store, profile)  # 10 updated, 4 gone, 20 new: the budget of 4 for revisits
        assert summary["revisits_newer"] + summary["revisits_due"] == 4 and summary["updated"] == 4
        time.sleep(1.3)
        again, _ = crawl(store, profile)
        assert again["revisits_due"] + again["revisits_newer"] == 4 and again["revisited"] == 4
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_fetcher_sends_only_the_two_conditional_headers_on_one_line(store):
    with Site({"/x": article_page("X")}) as site:
        fetcher = Fetcher("XNews-test")
        fetcher.fetch(site.url + "/x", conditions={"If-None-Match": '"a"\r\nX-Evil: 1', "Cookie": "k=v",
                                                    "If-Modified-Since": "Tue, 02 Jan 2024 10:00:00 GMT"})
        fetcher.close()
        headers = site.log[-1][2]
        assert "X-Evil" not in headers and headers.get("Cookie") is None and "If-None-Match" not in headers
        assert headers["If-Modified-Since"] == "Tue, 02 Jan 2024 10:00:00 GMT"


@pytest.mark.parametrize("strategy", ["bfs", "importance"])  # a queue on disk, one in memory
def test_fetch_again_after_an_unfinished_pass_fetches_that_article_and_keeps_the_pass_to_resume(store, strategy):
    """A crawl stopped by its page limit leaves its pass to resume. "Fetch again" (and --revisit) then
    resumed that pass instead: the article asked for was never requested, new pages were crawled."""
    version = {"a-1": "Bản đầu."}
    routes = {"/": list_page([f"/a-{i}.htm" for i in range(1, 9)])}
    routes.update({f"/a-{i}.htm": article_page(f"Tin {i}") for i in range(2, 9)})
    routes["/a-1.htm"] = lambda handler: answer(handler, article_page("Tin 1", version["a-1"]))
    with Site(routes) as site:
        profile = make_profile(site.url + "/", strategy=strategy)
        first, _ = crawl(store, profile, max_pages=4)
        assert first["articles"] == 3 and first["status"] != "finished"
        version["a-1"] = "Bản đã sửa: nội dung mới hơn hẳn."
        site.log.clear()
        again, events = crawl(store, profile, revisit_urls=(site.url + "/a-1.htm",))
        assert [p for p in site.paths() if p != "/robots.txt"] == ["/a-1.htm"]  # that one, nothing else
        assert again["updated"] == 1 and again["articles"] == 0
        assert not any("resuming" in e.data.get("message", "") for e in events if e.kind == "log")
        Article = store.models.Article
        assert "Bản đã sửa" in Article.get(Article.url == site.url + "/a-1.htm").body_text
        site.log.clear()
        rest, events = crawl(store, profile)  # the stopped pass goes on where it stopped
        assert rest["resumed"] is True and rest["articles"] == 5
        assert not {"/a-1.htm", "/a-2.htm", "/a-3.htm"} & set(site.paths())


def test_revisit_all_is_done_in_a_resumed_pass_too(store):
    routes = {"/": list_page([f"/a-{i}.htm" for i in range(1, 7)])}
    routes.update({f"/a-{i}.htm": article_page(f"Tin {i}") for i in range(1, 7)})
    with Site(routes) as site:
        profile = make_profile(site.url + "/")
        crawl(store, profile, max_pages=3)
        site.log.clear()
        summary, events = crawl(store, profile, revisit=True)
        assert summary["resumed"] is True and summary["articles"] == 4
        assert summary["revisited"] == 2 and {"/a-1.htm", "/a-2.htm"} <= set(site.paths())
        assert any(e.data.get("message", "").startswith("revisiting 2") for e in events if e.kind == "log")


def test_an_article_marked_gone_that_comes_back_is_found_by_revisit_all(store):
    """Two 404s seconds apart marked an article gone for good: revisit-all left it out from then on, and a
    page that answered again stayed "removed at the source"."""
    answers = {"next": []}

    def story(handler):
        status = answers["next"].pop(0) if answers["next"] else 200
        answer(handler, article_page("Tin ba", "Bài quay lại.") if status == 200 else (status, {}, "<html>lỗi</html>"))

    with Site({"/": list_page(["/c-3.htm"]), "/c-3.htm": story}) as site:
        profile = make_profile(site.url + "/")
        url = site.url + "/c-3.htm"
        crawl(store, profile)
        answers["next"] = [404, 404]
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert summary["gone"] == 1 and store.stored_copies([url])[url]["gone"] is True
        answers["next"] = [404]  # still gone: asked once, not twice, and it stays gone
        site.log.clear()
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert site.paths().count("/c-3.htm") == 1 and summary["still_gone"] == 1
        assert store.stored_copies([url])[url]["gone"] is True
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)  # it answers again
        assert store.stored_copies([url])[url]["gone"] is False and summary["revisited"] == 1


def test_a_revisit_answered_by_a_redirect_revises_the_stored_article_not_a_new_one(store):
    """A stored story that later answers 301 -> /d-40.htm was stored a second time, the first left as it was."""
    moved = {"yes": False}

    def story(handler):
        if moved["yes"]:
            handler.send_response(301)
            handler.send_header("Location", "/d-40.htm")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        answer(handler, article_page("Tin bốn", "Bản đầu."))

    routes = {"/": list_page(["/d-4.htm"]), "/d-4.htm": story,
              "/d-40.htm": article_page("Tin bốn", "Bản mới ở địa chỉ mới, dài hơn bản đầu.")}
    with Site(routes) as site:
        profile = make_profile(site.url + "/")
        crawl(store, profile)
        moved["yes"] = True
        summary, _ = crawl(store, profile, revisit=True)
        Article = store.models.Article
        rows = list(Article.select(Article.url, Article.body_text))
        assert [r.url for r in rows] == [site.url + "/d-4.htm"]  # revised in place, no second copy
        assert "địa chỉ mới" in rows[0].body_text and summary["updated"] == 1
        history = store.db.execute_sql("SELECT reason FROM article_version").fetchall()
        assert history == [(f"changed at the source (moved to {site.url}/d-40.htm)",)]


def test_fetch_again_of_an_article_still_queued_by_an_unfinished_pass_fetches_it(store):
    """Revisit all stopped at its page limit with a-6's revisit still queued: "Fetch again" of a-6 then
    fetched nothing and said finished."""
    routes = {"/": list_page([f"/a-{i}.htm" for i in range(1, 7)])}
    routes.update({f"/a-{i}.htm": article_page(f"Tin {i}") for i in range(1, 7)})
    with Site(routes) as site:
        profile = make_profile(site.url + "/")
        crawl(store, profile)
        crawl(store, profile, revisit=True, max_pages=2)  # stopped with revisits queued
        site.log.clear()
        summary, _ = crawl(store, profile, revisit_urls=(site.url + "/a-6.htm",))
        assert [p for p in site.paths() if p != "/robots.txt"] == ["/a-6.htm"] and summary["revisited"] == 1


def test_an_article_marked_gone_that_comes_back_unchanged_is_not_gone(store):
    """A gone article's revisit sent its old validators: the page back as it was answered 304, which left it
    gone for good."""
    answers = {"next": []}
    etag = 'W/"7"'

    def story(handler):
        status = answers["next"].pop(0) if answers["next"] else 200
        if status == 200 and handler.headers.get("If-None-Match") == etag:
            handler.send_response(304)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        page = article_page("Tin năm", "Bài vẫn như cũ.") if status == 200 else (status, {}, "<html>lỗi</html>")
        answer(handler, (page[0], dict(page[1], ETag=etag), page[2]))

    with Site({"/": list_page(["/e-5.htm"]), "/e-5.htm": story}) as site:
        profile = make_profile(site.url + "/")
        url = site.url + "/e-5.htm"
        crawl(store, profile)
        answers["next"] = [404, 404]
        crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert store.stored_copies([url])[url]["gone"] is True
        site.log.clear()
        summary, _ = crawl(store, profile, revisit=True, gone_confirm_s=0.2)  # back, the same page
        asked = [h for _, p, h in site.log if p == "/e-5.htm"]
        assert len(asked) == 1 and "If-None-Match" not in asked[0]
        assert store.stored_copies([url])[url]["gone"] is False
