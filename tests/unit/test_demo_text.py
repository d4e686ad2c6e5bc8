"""The demo site's text: varied, realistic stories per section (distinct stories share few shingles,
so near-duplicate detection keeps them apart), wire copies that really are the same story, and text
the shipped topic model reads as its section's topic."""

from __future__ import annotations

import itertools
import statistics

from xnews_gui.classify.model import TopicClassifier
from xnews_gui.core.text import neardup
from xnews_gui.demo import prose
from xnews_gui.demo.site import WIRE_COPIES, DemoSite
from xnews_gui.paths import RESOURCES


def body(a) -> str:
    return "\n".join(a.paragraphs)


def test_distinct_stories_of_a_section_share_few_shingles_and_are_never_one_story():
    site = DemoSite()
    grams = {a.id: neardup.shingles(body(a)) for a in site.articles}
    sigs = {a.id: neardup.signature(body(a)) for a in site.articles}
    shared = []
    for a, b in itertools.combinations(site.articles, 2):
        if a.story == b.story:
            continue
        if a.cat_slug == b.cat_slug:
            common = len(grams[a.id] & grams[b.id])
            shared.append(common / min(len(grams[a.id]), len(grams[b.id])))
        assert not neardup.same_story(sigs[a.id], sigs[b.id]), (a.title, b.title)
    assert statistics.mean(shared) < 0.2 and max(shared) < 0.45  # the old demo: one shared set of 6 sentences


def test_wire_copies_are_near_duplicates_of_their_original():
    site = DemoSite()
    told = site.stories_told_twice()
    assert sorted(map(len, told)) == [2, 2, 3] and sum(map(len, told)) == len(WIRE_COPIES) + 3
    by_path = {a.path: a for a in site.articles}
    for paths in told:
        group = [by_path[p] for p in paths]
        original = next(a for a in group if a.id == a.story)
        for copy in group:
            assert copy.cat_slug == original.cat_slug
            if copy is not original:
                assert copy.author == "Theo TTXVN" and copy.published > original.published
                assert copy.paragraphs[0].endswith(original.paragraphs[0]) and "(TTXVN)" in copy.paragraphs[0]
                assert copy.paragraphs[1:-1] == original.paragraphs[1:-1]  # the closing line cut
        for a, b in itertools.combinations(group, 2):
            assert neardup.same_story(neardup.signature(body(a)), neardup.signature(body(b)))


def test_the_text_is_deterministic_filled_and_varied():
    one, again, other = DemoSite(), DemoSite(), DemoSite(seed=8)
    assert [a.paragraphs for a in one.articles] == [a.paragraphs for a in again.articles]
    assert [a.paragraphs for a in one.articles] != [a.paragraphs for a in other.articles]
    for a in one.articles:
        text = " ".join((a.title, a.summary) + a.paragraphs)
        assert not any(c in text for c in "{}[]|"), text  # every slot and alternative filled
        assert 4 <= len(a.paragraphs) and 100 <= len(text.split()) <= 400
    assert len({a.title for a in one.articles}) == len(one.articles) - 1  # the two desks of one wire story
    sentences = [s for a in one.articles for p in a.paragraphs for s in p.split(". ")]
    assert len(set(sentences)) > 0.8 * len(sentences)


def test_fill_capitalises_slots_and_picks_alternatives():
    import random
    slots = {"company": "chuỗi siêu thị Xanh", "n": lambda: "7"}
    text = prose.fill("{Company} mở thêm {n} cửa hàng [ở Huế|ở Vinh].", slots, random.Random(1))
    assert text in ("Chuỗi siêu thị Xanh mở thêm 7 cửa hàng ở Huế.", "Chuỗi siêu thị Xanh mở thêm 7 cửa hàng ở Vinh.")


def test_the_shipped_model_reads_the_demo_stories_as_their_sections_topics():
    model = TopicClassifier.load(RESOURCES / "model" / "topic.npz")
    site = DemoSite()
    texts = [f"{a.title}\n{a.summary}\n{body(a)}" for a in site.articles]
    labels = [p.label for p in model.predict_many(texts)]
    wrong = [(a.title, a.topic, label) for a, label in zip(site.articles, labels) if label != a.topic]
    # all 72 today; a retrained model or new templates may move a story on a border (world trade
    # read as business): at most two, never a section as a whole
    assert len(wrong) <= 2, wrong
