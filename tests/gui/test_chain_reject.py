"""Rejecting a tinted match of a field whose rules form a chain (one rule per layout): the rule that took it
is refined and the others stay. The whole chain was replaced by one rule from all the clicks, so the other
layout's title went empty until Save, and Save's learning brought the rejected match back without a word."""

from __future__ import annotations

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.induction.selectors import locate
from xnews_gui.core.profile.rules import parse_html
from xnews_gui.ui.inspector.draft import Draft, alternative_order, induce_job
from xnews_gui.ui.inspector.site_rules import learn, merge, site_job

A = ("<html><body><div class='top'><h1 class='headline'>Mayor opens the new bridge today</h1>"
     "<h1 class='promo'>Subscribe now for news</h1></div><p>" + "word " * 60 + "</p></body></html>")
B = ("<html><body><section><h2 class='story-title'>Council votes on budget plan</h2>"
     "<h2 class='story-title side'>Most read stories</h2></section><p>" + "word " * 60 + "</p></body></html>")
REJECTED = "/html/body/section/h2[2]"


def takes(rule, html: str, xpath: str) -> bool:
    doc = parse_html(html)
    element = locate(doc, xpath)
    return rule.kind in ("css", "xpath") and any(m is element for m in rule.select(doc))


def run(draft: Draft, job) -> None:
    candidates = induce_job(job)
    draft.apply_induced(job, candidates, alternative_order(job, candidates) if job.mode == "alternative" else None)


def titles(draft: Draft) -> tuple[str, str]:
    return extract(A, "http://x/a", draft.profile).title, extract(B, "http://x/b", draft.profile).title


def test_a_rejection_refines_the_rule_that_took_it_and_save_keeps_it():
    draft = Draft.new("s", "http://x/")
    run(draft, draft.add_pick("title", "http://x/a", A, "/html/body/div/h1[1]", False))
    run(draft, draft.add_pick("title", "http://x/b", B, "/html/body/section/h2[1]", False))
    first, second = draft.profile.rules_for("title")[:2]
    assert takes(second, B, REJECTED), "the layout B rule does not tint the sidebar: the test shows nothing"

    run(draft, draft.add_pick("title", "http://x/b", B, REJECTED, True))
    rules = draft.profile.rules_for("title")
    assert rules[0] == first and len(rules) == 2  # layout A's rule stays
    assert not takes(rules[1], B, REJECTED)  # layout B's rule no longer takes the rejected match
    assert titles(draft) == ("Mayor opens the new bridge today", "Council votes on budget plan")

    job = site_job(draft, {})
    learned, notes, _changes = learn(job)
    merge(draft, job, learned)
    assert not any(takes(r, B, REJECTED) for r in draft.profile.rules_for("title"))
    assert any("takes a match you rejected" in n for n in notes)
    assert titles(draft) == ("Mayor opens the new bridge today", "Council votes on budget plan")


def test_a_deleted_learned_remove_rule_does_not_come_back_at_the_next_save():
    from xnews_gui.core.profile.profile import Profile
    from xnews_gui.core.profile.rules import Rule
    from xnews_gui.ui.inspector.site_rules import SiteJob

    share = Rule(kind="css", selector="div.share", take="html")
    body = Rule(kind="css", selector="div.story", take="html", required=True)
    learned = Profile(name="s", start_urls=("http://x/",), fields={"body": body}, remove=(share,))
    draft = Draft.new("s", "http://x/")
    draft.profile = draft.profile.with_field("body", body).with_(remove=(share,))
    draft.learned_remove = (share,)
    draft.delete("remove:0")
    assert draft.profile.remove == ()
    draft.picked.add("body")
    job = SiteJob(groups=(), siblings=(), generations={"body": draft.generations.get("body", 0)}, name="s",
                  start_url="http://x/")
    merge(draft, job, learned)  # Save learns the body again, with the same share block
    assert draft.profile.remove == ()
