"""A template change is flagged degraded within 30 pages, and a working repair is proposed (core only)."""

from xnews_gui.core.extract import extract
from xnews_gui.core.profile import Profile
from xnews_gui.core.repair import propose_repair
from xnews_gui.core.rules import normalize_space, parse_html
from xnews_gui.core.selectors import element_xpath, induce_profile
from xnews_gui.core.verify import WINDOW, Verifier
from xnews_gui.demo.site import DemoSite


def test_second_template_degrades_the_body_and_the_repair_fixes_it():
    site = DemoSite(second_template=True)
    old = [a for a in site.articles if not site.uses_second_template(a)]
    new = [a for a in site.articles if site.uses_second_template(a)]
    clicked = site.article_page(old[0])
    doc = parse_html(clicked)
    # authored before the redesign: the siblings all have the first layout
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(doc.xpath("//div[@class='article-body']")[0]))]},
                             siblings=[site.article_page(a) for a in old[1:4]], name="demo", start_url="http://demo.test/")
    profile = Profile.from_json(profile.to_json())
    verifier = Verifier()
    stream = old[4:14] + new[:10]  # the redesign starts rolling out
    failing = []
    for n, a in enumerate(stream, 1):
        html = site.article_page(a)
        art = extract(html, "http://demo.test" + a.path, profile)
        verifier.add(art)
        if art.checks["body"]:
            failing.append((html, art.url))
    assert len(stream) <= WINDOW
    assert "body" in verifier.degraded() and "title" not in verifier.degraded()
    assert set(verifier.degraded()["body"]) == {u for _, u in failing}
    repair = propose_repair(profile, "body", failing)
    assert repair is not None and repair.fixed == len(failing), repair
    repaired = repair.apply(profile)
    for a in new[10:14] + old[14:16]:
        art = extract(site.article_page(a), "http://demo.test" + a.path, repaired)
        assert art.checks["body"] == [] and art.fallbacks == []
        assert normalize_space(a.paragraphs[-1]) in art.body_text
        assert "Chia sẻ" not in art.body_text  # the new container's share bar goes with the repair
