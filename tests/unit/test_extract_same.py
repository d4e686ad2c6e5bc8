"""Extraction gives what it gave: every field of every pinned case (tests/extract_corpus.py).

The digests in tests/data/extract_same.json.gz were computed by the extraction as it was before it
was made faster; a rewrite must give the same Article (title, summary, body text and HTML, images,
dates, author, errors, checks, fallbacks, content hash) and the same followed links on ~1,000 real
and simulated pages. A case whose PAGE changed (the simulator or the demo site was edited) is
reported as such: re-pin with ``python3 -m tests.extract_corpus --write`` and say why.
"""

from __future__ import annotations

import pytest

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
    if not corpus.SHARED.joinpath("data").is_dir():
        pytest.skip(f"shared test data not found: {corpus.SHARED / 'data'}")
    now, missing, page_changed, changed = _compare(pinned)
    assert not missing, f"{len(missing)} pinned cases no longer produced, e.g. {missing[:5]}"
    assert not page_changed, f"{len(page_changed)} pages changed (re-pin on purpose), e.g. {page_changed[:5]}"
    details = []
    for key in changed[:5]:
        out = now[key][2]
        details.append(f"{key}: now {str(out)[:300]}")
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
