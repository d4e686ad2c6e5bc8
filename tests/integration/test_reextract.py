"""Re-extraction from the saved raw pages (no network) and the exports of articles that followed their source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

from tests.old_site import OldSite, old_site_profile
from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.export import export_articles
from xnews_gui.services.crawl import start_crawl
from xnews_gui.services.reextract import apply_reextract, plan_reextract

REPO = Path(__file__).resolve().parents[2]


def crawl(store, profile, **options):
    return start_crawl(profile, store, CrawlOptions(fetch_images=False, **options), classifier=None).run()


def cli(data_dir, *args):
    return subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir), *args],
                          capture_output=True, text=True, timeout=120)


def with_rule(profile: Profile, **fields) -> Profile:
    data = profile.to_dict()
    data["fields"].update(fields)
    return Profile.from_dict(data)


def test_reextract_replaces_what_the_new_rules_change_and_keeps_the_prior_values(store, data_dir):
    with OldSite() as site:
        profile = old_site_profile(site)
        crawl(store, profile)
    # the site is gone now: everything below reads the saved pages only
    store.save_profile(profile, reason="saved in inspector")
    first_paragraph = with_rule(profile, body={"kind": "css", "selector": "td.noidung p:first-child", "take": "html",
                                               "required": True})
    store.save_profile(first_paragraph, reason="repair accepted: body")
    out = cli(data_dir, "reextract", "--profile", "phonui", "--dry-run")
    assert out.returncode == 0 and out.stdout.splitlines() == ["14 of 14 stored articles change (body 14)"], out
    story = store.article_id_for_url(f"{site.url}tin.php?id=101")
    before = store.get_article(story)
    out = cli(data_dir, "reextract", "--profile", "phonui")
    assert out.returncode == 0 and "re-extracted 14 article(s)" in out.stdout, out
    after = store.get_article(story)
    assert after.body_text == before.body_text.split("\n")[0] and after.title == before.title
    [kept] = store.article_versions(story)
    assert kept.body_html == before.body_html and kept.reason == "re-extracted: profile phonui version 2"
    assert cli(data_dir, "reextract", "--profile", "phonui").stdout.startswith("0 of 14 stored articles change")


def test_reextract_keeps_articles_whose_page_the_rules_no_longer_read_or_that_have_no_page(store):
    with OldSite() as site:
        profile = old_site_profile(site)
        crawl(store, profile)
        store.db.execute_sql("UPDATE page SET raw_path = '' WHERE url = ?", (f"{site.url}tin.php?id=101",))
    broken = with_rule(profile, title={"kind": "css", "selector": "h1.nowhere", "take": "text", "required": True})
    plan = plan_reextract(store, broken)
    assert (plan.stored, plan.without_page, plan.failing, plan.count) == (14, 1, 13, 0)
    assert plan.summary() == ("0 of 14 stored articles change; 1 have no saved page; on 13 saved pages the rules "
                              "find no article (those stay as stored)")
    assert apply_reextract(store, broken, plan) == 0


def test_exports_say_when_an_article_changed_or_left_its_source(store, tmp_path):
    with OldSite() as site:
        profile = old_site_profile(site)
        crawl(store, profile)
        site.revise(updated={101: "Cập nhật lúc 14:05."}, gone={102})
        summary = crawl(store, profile, revisit=True, gone_confirm_s=0.2)
        assert (summary["updated"], summary["gone"]) == (1, 1)
    ids = [i for _, i in store.ordered_keys(__import__("xnews_gui.store.queries", fromlist=["ArticleFilter"])
                                            .ArticleFilter())]
    articles = store.articles_for_export(ids)
    export_articles(articles, "jsonl", tmp_path / "a.jsonl", store)
    rows = {r["url"].rsplit("=", 1)[1]: r for r in map(json.loads, (tmp_path / "a.jsonl").read_text().splitlines())}
    assert rows["101"]["updated_at"] and rows["101"]["gone_at"] is None
    assert rows["102"]["gone_at"] and rows["102"]["updated_at"] is None
    assert rows["103"]["updated_at"] is None and rows["103"]["gone_at"] is None and "gone_at" in rows["103"]
    export_articles(articles, "atom", tmp_path / "a.atom", store)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = {e.find("a:id", ns).text.rsplit("=", 1)[1]: e for e in ET.parse(tmp_path / "a.atom").getroot()
               .findall("a:entry", ns)}
    assert entries["101"].find("a:updated", ns).text == rows["101"]["updated_at"]
    assert entries["103"].find("a:updated", ns).text == entries["103"].find("a:published", ns).text
    export_articles(articles, "rss", tmp_path / "a.rss", store)
    items = ET.parse(tmp_path / "a.rss").getroot().findall("channel/item")
    updated = [i.find("{http://www.w3.org/2005/Atom}updated") for i in items]
    assert sum(u is not None for u in updated) == 1


def test_reextract_with_a_model_that_gives_no_topic_leaves_none_not_the_old_one(store):
    """The model gives a re-extracted article no topic (too short, too unsure): its old topic stayed, stale
    and unsaid."""
    from xnews_gui.classify import TopicClassifier
    from xnews_gui.paths import BUNDLED_MODEL

    with OldSite() as site:
        profile = old_site_profile(site)
        crawl(store, profile)
    store.db.execute_sql("UPDATE article SET category = 'The thao', confidence = 0.9")
    story = store.article_id_for_url(f"{site.url}tin.php?id=101")
    store.set_user_label(store.article_id_for_url(f"{site.url}tin.php?id=102"), "Kinh doanh")
    first_paragraph = with_rule(profile, body={"kind": "css", "selector": "td.noidung p:first-child",
                                               "take": "html", "required": True})
    plan = plan_reextract(store, first_paragraph)
    unsure = TopicClassifier.load(BUNDLED_MODEL)
    unsure.floor = 0.999  # labels nothing
    assert apply_reextract(store, first_paragraph, plan, classifier=unsure) == 14
    row = store.get_article(story)
    assert row.category is None  # "no topic" from the model, as a crawl stores it, not the stale "The thao"
    assert store.get_article(store.article_id_for_url(f"{site.url}tin.php?id=102")).category == "Kinh doanh"
