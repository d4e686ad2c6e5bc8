"""Rules authored on the demo site before its redesign: the clicked page and its siblings use the first
article layout, so the rules break on the second one (every third article of DemoSite(second_template=True))."""

from __future__ import annotations

from tests.conftest import PROFILES
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import parse_html
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.demo.site import DemoSite


def profile_authored_before_redesign(site: DemoSite, name: str, start_url: str) -> Profile:
    """The bundled demo profile with title and body induced from one first-layout page + 3 siblings."""
    old = [a for a in site.articles if not site.uses_second_template(a)]
    clicked = site.article_page(old[0])
    doc = parse_html(clicked)
    induced = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(doc.xpath("//div[@class='article-body']")[0]))]},
                             siblings=[site.article_page(a) for a in old[1:4]], name=name)
    bundled = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    return bundled.with_(name=name, start_urls=(start_url,), fields=induced.fields, chains=induced.chains,
                         remove=induced.remove)
