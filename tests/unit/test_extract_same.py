"""Extraction gives what it gave: every field of every pinned case (tests/extract_corpus.py).

The digests in tests/data/extract_same.json.gz were computed by the extraction as it was before it
was made faster; a rewrite must give the same Article (title, summary, body text and HTML, images,
dates, author, errors, checks, fallbacks, content hash) and the same followed links on ~1,000 real
and simulated pages. A case whose PAGE changed (the simulator or the demo site was edited) is
reported as such: re-pin with ``python3 -m tests.extract_corpus --write`` and say why.
"""

from __future__ import annotations

import pytest

from tests.conftest import shared_data

from tests import extract_corpus as corpus

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pinned():
    if not corpus.FIXTURE.is_file():
        pytest.fail(f"fixture missing: {corpus.FIXTURE}")
    return corpus.read_fixture()


def _compare(pinned, groups=None):
    now = corpus.outputs(pinned["induced_profiles"], groups)
    expected = pinned["cases"] if groups is None else {k: v for k, v in pinned["cases"].items() if k in now}
    missing = sorted(set(expected) - set(now))
    page_changed = sorted(k for k in expected if k in now and now[k][0] != expected[k][0])
    changed = sorted(k for k in expected if k in now and now[k][0] == expected[k][0] and now[k][1] != expected[k][1])
    return now, missing, page_changed, changed


def test_every_pinned_page_gives_the_same_article_and_links(pinned):
    shared_data()  # the real pages: skip with the reason when absent
    now, missing, page_changed, changed = _compare(pinned)
    assert not missing, f"{len(missing)} pinned cases no longer produced, e.g. {missing[:5]}"
    assert not page_changed, f"{len(page_changed)} pages changed (re-pin on purpose), e.g. {page_changed[:5]}"
    details = [f"{key}:\n    " + "\n    ".join(corpus.moved_fields(pinned["cases"][key][2], now[key][2]))
               for key in changed[:8]]
    assert not changed, f"{len(changed)} of {len(pinned['cases'])} cases give another output:\n" + "\n".join(details)
    assert len(now) >= 1000


def test_a_changed_output_is_caught(pinned):
    """The comparison is not blind: a pinned digest that does not match is reported."""
    key = next(k for k in pinned["cases"] if k.startswith("demo:"))
    tampered = {"induced_profiles": pinned["induced_profiles"],
                "cases": {key: [pinned["cases"][key][0], "0" * 40]}}
    now, missing, page_changed, changed = _compare(tampered, groups={"demo"})
    assert len(now) > 70
    assert (missing, page_changed, changed) == ([], [], [key])


def test_a_moved_field_is_named_with_its_old_and_new_value():
    """The failure says which field moved and how: a short field old -> new, a long one by lines."""
    body = "\n".join(f"Đoạn văn số {i} của bài báo." for i in range(30))
    before = {"title": "Tin cũ", "date": "2024-05-09T11:26:41+00:00", "body_text": body, "errors": []}
    pins = corpus.field_pins(before)
    assert pins["title"] == "Tin cũ" and corpus.PIN in pins["body_text"]
    assert corpus.moved_fields(pins, before) == []
    after = dict(before, date="2024-09-04T13:26:00",
                 body_text=body.replace("Đoạn văn số 7 của bài báo.", "Một đoạn mới hẳn."))
    moved = corpus.moved_fields(pins, after)
    assert moved[0] == "body_text (30 -> 30 lines): 1 line(s) from line 8 gone; now: Một đoạn mới hẳn."
    assert moved[1] == "date: 2024-05-09T11:26:41+00:00 -> 2024-09-04T13:26:00"
    assert len(moved) == 2
