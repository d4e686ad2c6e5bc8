"""MaxEnt training on a small fixed VNTC sample, save/load, and unusable model files."""

import json
from collections import Counter
from pathlib import Path

import joblib
import numpy as np
import pytest

from xnews_gui.classify import ModelError, TopicClassifier, TrainConfig, corpus, train
from xnews_gui.classify.model import FORMAT, card_path

SAMPLE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "vntc" / "sample"


@pytest.fixture(scope="module")
def sample_set():
    if not SAMPLE.is_dir():
        pytest.skip(f"VNTC sample not found at {SAMPLE} (../shared/data/vntc/sample)")
    return corpus.build(corpus.load_folder(SAMPLE / "Train_Full"), corpus.load_folder(SAMPLE / "Test_Full"),
                        source="vntc sample")


@pytest.fixture(scope="module")
def trained(sample_set):
    return train(sample_set, TrainConfig(max_features=30000))


def test_sample_is_ten_topics(sample_set):
    assert len(sample_set.labels) == 10
    assert len(sample_set.train) >= 190 and len(sample_set.test) >= 150


def test_beats_the_majority_class_by_a_wide_margin(sample_set, trained):
    model, scores = trained
    majority_label, n = Counter(d.label for d in sample_set.train).most_common(1)[0]
    baseline = sum(d.label == majority_label for d in sample_set.test) / len(sample_set.test)
    assert baseline < 0.15
    assert scores.accuracy > baseline + 0.5, scores.format()
    assert scores.macro["f1"] > 0.6
    assert model.card["metrics"]["accuracy"] == pytest.approx(scores.accuracy, abs=1e-6)


def test_training_is_deterministic(sample_set, trained):
    again, scores = train(sample_set, TrainConfig(max_features=30000))
    first = trained[0].pipeline.named_steps["maxent"].coef_
    np.testing.assert_array_equal(first, again.pipeline.named_steps["maxent"].coef_)
    assert scores.matrix.tolist() == trained[1].matrix.tolist()


def test_predict_api(sample_set, trained):
    model, _ = trained
    doc = sample_set.test[0]
    label, confidence = model.predict(doc.text)
    assert label in model.labels and 0 < confidence <= 1
    proba = model.proba(doc.text)
    assert set(proba) == set(model.labels) and sum(proba.values()) == pytest.approx(1)
    assert max(proba, key=proba.get) == label and proba[label] == pytest.approx(confidence)
    assert model.predict_many([d.text for d in sample_set.test[:3]])[0] == (label, pytest.approx(confidence))
    assert model.predict_many([]) == []
    assert model.predict("") [0] in model.labels  # empty text still gets an answer
    assert model.relevance(doc.text, model.labels) == pytest.approx(1)
    assert model.seen_in_training(sample_set.train[0].text)
    assert not model.seen_in_training(doc.text)


def test_card_describes_the_model(trained):
    card = trained[0].card
    assert card["labels"] == sorted(card["labels"]) and len(card["labels"]) == 10
    assert card["training_set"]["source"] == "vntc sample"
    assert {"scikit-learn", "numpy", "joblib", "python"} <= set(card["versions"])
    assert card["config"]["max_features"] == 30000 and card["features"] <= 30000
    assert "created" in card and "MaxEnt" in card["model"]
    assert len(card["metrics"]["confusion_matrix"]) == 10


def test_save_load_round_trip(tmp_path, sample_set, trained):
    model, _ = trained
    path = model.save(tmp_path / "models" / "topic.joblib")
    assert json.loads(card_path(path).read_text(encoding="utf-8"))["labels"] == model.labels
    loaded = TopicClassifier.load(path)
    texts = [d.text for d in sample_set.test[:20]]
    assert loaded.labels == model.labels and loaded.card["metrics"] == model.card["metrics"]
    before, after = model.predict_many(texts), loaded.predict_many(texts)
    assert [label for label, _ in after] == [label for label, _ in before]
    assert [conf for _, conf in after] == pytest.approx([conf for _, conf in before])
    assert "load_warning" not in loaded.card
    assert not list(tmp_path.glob("models/*.part"))


def test_missing_model_says_how_to_make_one(tmp_path):
    with pytest.raises(ModelError, match="no model file.*train"):
        TopicClassifier.load(tmp_path / "nothing.joblib")


def test_corrupt_model_is_a_clear_error(tmp_path, trained):
    path = trained[0].save(tmp_path / "topic.joblib")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged or not a model"):
        TopicClassifier.load(path)
    path.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="damaged or not a model"):
        TopicClassifier.load(path)


def test_other_pickles_are_not_models(tmp_path):
    joblib.dump({"weights": [1, 2, 3]}, tmp_path / "other.joblib")
    with pytest.raises(ModelError, match="not an XNews topic model"):
        TopicClassifier.load(tmp_path / "other.joblib")


def test_newer_model_format_is_refused_clearly(tmp_path, trained):
    joblib.dump({"format": FORMAT, "format_version": 99, "pipeline": trained[0].pipeline},
                tmp_path / "future.joblib")
    with pytest.raises(ModelError, match="format 99.*retrain"):
        TopicClassifier.load(tmp_path / "future.joblib")


def test_model_from_an_incompatible_library_is_refused_clearly(tmp_path):
    # A pickle naming a class that this scikit-learn does not have (protocol 0, written by hand).
    (tmp_path / "old.joblib").write_bytes(b"csklearn.gone_in_this_version\nOldEstimator\n(tR.")
    with pytest.raises(ModelError, match="incompatible version.*retrain"):
        TopicClassifier.load(tmp_path / "old.joblib")


class Broken:
    """Unpickles fine but fails to predict, as an estimator from another scikit-learn can."""

    classes_ = np.array(["a", "b"])

    def predict_proba(self, texts):
        raise AttributeError("'LogisticRegression' object has no attribute 'multi_class'")


def test_model_that_cannot_classify_is_refused_clearly(tmp_path):
    joblib.dump({"format": FORMAT, "format_version": 1, "pipeline": Broken(), "card": {}},
                tmp_path / "broken.joblib")
    with pytest.raises(ModelError, match="cannot classify"):
        TopicClassifier.load(tmp_path / "broken.joblib")


def test_training_needs_two_labels():
    data = corpus.TrainingSet([corpus.Doc("một", "A"), corpus.Doc("hai", "A")], [], {})
    with pytest.raises(ValueError, match="two labels"):
        train(data)


def test_the_bundled_model_loads_and_labels_real_articles(sample_set):
    from xnews_gui.paths import RESOURCES

    path = RESOURCES / "model" / "topic.joblib"
    assert path.stat().st_size < 10_000_000, "keep the shipped model small"
    model = TopicClassifier.load(path)
    card = model.card
    assert card["command"].startswith("python main.py train --corpus ")
    assert card["metrics"]["accuracy"] > 0.93 and "load_warning" not in card
    docs = sample_set.test[::4]
    predicted = [label for label, _ in model.predict_many([d.text for d in docs])]
    hits = sum(p == d.label for p, d in zip(predicted, docs))
    assert hits / len(docs) > 0.8
