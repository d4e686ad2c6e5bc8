"""The confidence floor as the caller's setting: the API, `classify --floor`, `crawl --topic-floor`, and the
coverage-vs-accuracy table `evaluate MODEL` prints from the card."""

import shutil
from pathlib import Path

import pytest

from tests.conftest import shared_data
from xnews_gui.classify import TopicClassifier
from xnews_gui.cli import main

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "resources" / "model" / "topic.npz"


@pytest.fixture(scope="module")
def model():
    return TopicClassifier.load(BUNDLED)


@pytest.fixture(scope="module")
def sample():
    return shared_data("vntc", "sample", "Test_Full")


@pytest.fixture(scope="module")
def texts(sample):
    return [p.read_text(encoding="utf-16") for p in sorted(sample.glob("*/*.txt"))]


def test_the_floor_is_the_callers_and_defaults_to_the_models(model, texts):
    confidences = [p.confidence for p in model.predict_many(texts, guard=False)]
    floor = sorted(confidences)[len(confidences) // 4]  # a quarter of the articles fall under it
    for given, default in ((floor, model.floor), (0.0, model.floor)):
        answers = model.predict_many(texts, floor=given)
        below = [c < given for c in confidences]
        assert [p.label is None for p in answers] == below
        assert all(p.reason == f"low confidence ({p.confidence:.0%} < {given:.0%})" for p in answers if p.label is None)
        assert model.floor == default  # the model's own floor is not changed by a call
    assert [p.label for p in model.predict_many(texts)] == \
        [None if c < model.floor else p.label for c, p in zip(confidences, model.predict_many(texts, floor=0))]
    assert model.predict(texts[0], floor=0.0).label is not None


@pytest.mark.parametrize("bad", [1.0, -0.1, float("nan"), float("inf"), "0.5", True])
def test_a_floor_outside_0_1_is_refused(model, bad):
    with pytest.raises(ValueError, match="confidence floor"):
        model.predict_many(["x"], floor=bad)
    with pytest.raises(ValueError, match="confidence floor"):
        model.floor = bad


def test_classify_takes_a_floor_and_refuses_a_bad_one(sample, tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    for p in sorted(sample.glob("*/*.txt"))[::20]:
        shutil.copy(p, folder / f"{p.parent.name}-{p.name}")
    args = ["--data-dir", str(tmp_path / "data"), "classify", str(BUNDLED), str(folder)]
    assert main(args + ["--floor", "0"]) == 0
    labelled = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert len(labelled) == 10 and all(row[1] != "-" for row in labelled)
    assert main(args + ["--floor", "0.99"]) == 0
    strict = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    refused = [row for row in strict if row[1] == "-"]
    assert refused and all(row[3].startswith("low confidence (") and row[3].endswith("< 99%)") for row in refused)
    assert all(float(row[2]) >= 0.99 for row in strict if row[1] != "-")
    with pytest.raises(SystemExit) as exit_:
        main(args + ["--floor", "1.5"])
    assert exit_.value.code == 2
    assert "is not a confidence floor" in capsys.readouterr().err


def test_the_crawl_classifies_with_the_floor_it_is_given(tmp_path):
    from xnews_gui.services.crawl import ClassifierLoader
    from xnews_gui.services.model_registry import Registry

    own = TopicClassifier.load(BUNDLED).floor  # the shipped model is the one in use in a new data folder
    assert ClassifierLoader(tmp_path)().floor == own
    assert ClassifierLoader(tmp_path, 0.85)().floor == 0.85
    Registry(tmp_path).set_floor(0.3)  # the user's choice (Classifier tab)...
    assert ClassifierLoader(tmp_path)().floor == 0.3
    assert ClassifierLoader(tmp_path, 0.85)().floor == 0.85  # ... and the one given for this crawl wins


def test_crawl_refuses_a_bad_topic_floor(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path), "crawl", "--profile", "x", "--topic-floor", "2"])
    assert exit_.value.code == 2 and "is not a confidence floor" in capsys.readouterr().err


def test_evaluate_shows_the_floors_trade_from_the_card(model, tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "evaluate", str(BUNDLED)]) == 0
    out = capsys.readouterr().out
    table = model.card["confidence_floor"]["table"]
    assert "confidence floors on the held-out part of train" in out
    for row in table:
        assert f"{row['floor']:5.2f}  {row['coverage']:13.2%}" in out
    assert "<- default" in out
