import json

import pytest

from xnews_gui.core.profile.profile import Profile, ProfileError

from ..conftest import PROFILES


def demo_dict():
    return json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))


def test_demo_profile_round_trips_through_json():
    profile = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    again = Profile.from_json(profile.to_json())
    assert again == profile
    assert profile.fields["title"].selector == "h1.article-title"
    assert profile.articles.accepts("http://127.0.0.1:8765/the-thao/a-b-1004.htm")
    assert not profile.articles.accepts("http://127.0.0.1:8765/the-thao/")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(schema=3), "unsupported schema version 3"),
        (lambda d: d.pop("schema"), "no 'schema' key, so this is not a profile XNews exported"),
        (lambda d: d.update(schema=None), "unsupported schema version None"),
        (lambda d: d["fields"]["title"].update(selector="h1[["), "fields.title: invalid CSS selector 'h1[['"),
        (lambda d: d["fields"]["author"].update(kind="xpath", selector="//div[@"), "fields.author: invalid XPath"),
        (lambda d: d["fields"]["body"].update(take="attribute"), "fields.body: invalid take 'attribute'"),
        (lambda d: d["fields"].update(headline={"selector": "h1"}), "unknown field 'headline'"),
        (lambda d: d.update(start_urls=["file:///etc/passwd"]), "is not an http(s) URL"),
        (lambda d: d.update(start_urls=[]), "start_urls: at least one is required"),
        (lambda d: d["links"]["articles"].update(allow=["(unclosed"]), "links.articles: invalid URL pattern"),
        (lambda d: d["crawl"].update(strategy="fastest"), "crawl.strategy: 'fastest' is not one of"),
        (lambda d: d["crawl"].update(concurrency=0), "crawl.concurrency: must be at least 1"),
        (lambda d: d.update(name="no spaces please"), "'name' must be"),
        (lambda d: d.update(colour="red"), "unknown key(s) colour"),
        (lambda d: d["fields"]["title"].update(post="(x"), "invalid post-processing regex"),
        (lambda d: d["fields"]["title"].update(kind="markers", start=[]), "needs at least one non-empty start"),
    ],
)
def test_invalid_profiles_are_refused_with_a_precise_message(change, message):
    data = demo_dict()
    change(data)
    with pytest.raises(ProfileError) as info:
        Profile.from_dict(data)
    assert message in str(info.value)
    if data.get("name") == "demo":
        assert str(info.value).startswith("profile 'demo'")


def test_malformed_json_names_line_and_column():
    with pytest.raises(ProfileError, match=r"not valid JSON: .* line 3, column"):
        Profile.from_json('{\n "schema": 1,\n "name": }')


def test_topic_for_url_uses_the_section_mapping():
    profile = Profile.from_dict(demo_dict())
    assert profile.topic_for_url("http://127.0.0.1:8765/the-thao/x-1004.htm") == "The thao"
    assert profile.topic_for_url("http://127.0.0.1:8765/other/") is None


def test_focus_topics_round_trip_and_validation():
    data = demo_dict()
    data["crawl"].update(strategy="focused", focus_topics=["The thao", "Suc khoe"], relevance_threshold=0.5)
    profile = Profile.from_dict(data)
    assert profile.crawl.focus_topics == ("The thao", "Suc khoe")
    assert Profile.from_json(profile.to_json()) == profile
    data["crawl"]["focus_topics"] = "The thao"  # a single label is accepted as a list of one
    assert Profile.from_dict(data).crawl.focus_topics == ("The thao",)
    data["crawl"]["focus_topics"] = [3]
    with pytest.raises(ProfileError, match="crawl.focus_topics: expected a list of non-empty strings"):
        Profile.from_dict(data)
