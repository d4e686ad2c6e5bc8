"""Save's learning step without a display: picks learned again from sibling pages, merged into the draft
as it is then (a newer hand edit wins; the person's own remove rules stay; no field is learned twice)."""

from __future__ import annotations

from xnews_gui.core.profile.rules import Rule, parse_html
from xnews_gui.core.induction.selectors import element_xpath
from xnews_gui.demo.site import DemoSite
from xnews_gui.ui.inspector.draft import Draft, induce_job
from xnews_gui.ui.inspector.site_rules import learn, merge, pending, site_job

BASE = "http://demo.test"


def _pick(draft: Draft, key: str, url: str, html: str, xpath: str) -> None:
    job = draft.add_pick(key, url, html, xpath, False)
    draft.apply_induced(job, induce_job(job))


def _draft():
    site = DemoSite(per_category=3)
    first, *others = site.articles[:5]
    html = site.article_page(first)
    doc = parse_html(html)
    url = BASE + first.path
    draft = Draft.new("demo", BASE + "/")
    _pick(draft, "title", url, html, element_xpath(doc.xpath("//h1")[0]))
    _pick(draft, "body", url, html, element_xpath(doc.xpath("//div[@class='article-body']/p")[0]))
    pages = {BASE + a.path: site.article_page(a) for a in others}
    return draft, url, html, pages


def test_a_paragraph_pick_is_widened_and_said_and_learning_happens_once():
    draft, url, html, pages = _draft()
    assert draft.profile.fields["body"].selector.endswith(" p") and pending(draft) == ["title", "body"]
    own = Rule(kind="css", selector="div.share-box", take="html")
    draft.profile = draft.profile.with_(remove=(own,))  # a Remove pick of the person's
    job = site_job(draft, dict(pages, **{url: html}))
    assert {u for u, _ in job.siblings} == set(pages) | {url}  # learn() leaves the clicked page itself out
    learned, notes, changed = learn(job)
    assert any("widened to the container" in n for n in notes) and changed == []  # the paragraph was not a whole body
    assert merge(draft, job, learned) == ["title", "body"]
    body = draft.profile.fields["body"]
    assert body.selector.endswith("article-body") and draft.profile.chains["body"].expect is not None
    assert draft.profile.remove[0] == own and len(draft.profile.remove) > 1  # learned boxes added after it
    assert pending(draft) == [] and site_job(draft, pages) is None  # Save goes on, nothing learned twice


def test_a_hand_edit_made_while_learning_wins_and_a_lost_click_does_not_loop():
    draft, url, html, pages = _draft()
    job = site_job(draft, pages)
    learned, _, _ = learn(job)
    edited = Rule(kind="css", selector="h1.article-title", take="text")
    draft.set_rule("title", edited)  # meanwhile, a hand edit
    assert merge(draft, job, learned) == ["body"]
    assert draft.profile.fields["title"] == edited and pending(draft) == []
    # a click whose element is gone from the page: the picked rule is kept, and learned no more
    draft2, url2, html2, pages2 = _draft()
    broken = site_job(draft2, pages2)
    groups = tuple((u, {k: [(h, "/html/body/nowhere[9]")] for k, [(h, _)] in clicks.items()})
                   for u, clicks in broken.groups)
    broken = type(broken)(groups, broken.siblings, broken.generations, broken.name, broken.start_url)
    learned2, notes2, _ = learn(broken)
    before = dict(draft2.profile.fields)
    assert merge(draft2, broken, learned2) == [] and draft2.profile.fields == before
    assert any("kept the picked rule" in n for n in notes2) and pending(draft2) == []


def test_degraded_fields_come_from_the_last_ended_crawl_and_a_bad_summary_is_none(store):
    from xnews_gui.ui.inspector.repair_bar import degraded_from_last_run

    assert degraded_from_last_run(store, "site") == {}
    run = store.start_run("site")
    store.finish_run(run, "finished", {"degraded_fields": {"body": ["http://a/1", "http://a/2"]}})
    assert degraded_from_last_run(store, "site") == {"body": ["http://a/1", "http://a/2"]}
    store.start_run("site")  # still running: the last ended run counts
    assert degraded_from_last_run(store, "site") == {"body": ["http://a/1", "http://a/2"]}
    run = store.start_run("other")
    store.finish_run(run, "finished", {"degraded_fields": ["not", "a", "dict"]})
    assert degraded_from_last_run(store, "other") == {}
