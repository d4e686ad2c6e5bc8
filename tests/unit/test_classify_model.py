"""MaxEnt training on a small fixed VNTC sample, save/load, and unusable model files."""

import json
from collections import Counter

import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from xnews_gui.classify import ModelError, TopicClassifier, TrainConfig, corpus, train
from tests.conftest import shared_data
from xnews_gui.classify import model_file
from xnews_gui.classify.model import card_path
from xnews_gui.classify.training import fit_pipeline

@pytest.fixture(scope="module")
def sample_set():
    sample = shared_data("vntc", "sample")
    return corpus.build(corpus.load_folder(sample / "Train_Full"), corpus.load_folder(sample / "Test_Full"),
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
    np.testing.assert_array_equal(trained[0].coef, again.coef)
    assert scores.matrix.tolist() == trained[1].matrix.tolist()


def test_same_labels_as_the_scikit_learn_pipeline_it_was_trained_as(sample_set):
    config = TrainConfig(max_features=30000)
    pipeline, _ = fit_pipeline([d.text for d in sample_set.train], [d.label for d in sample_set.train], config)
    model = TopicClassifier.from_pipeline(pipeline)
    texts = [d.text for d in sample_set.test] + ["", "Hà Nội", "English words only, nothing else here at all."]
    # leading punctuation and blank lines, a phrase of one word, no word at all
    texts += ["... , \n\n Bóng đá Việt Nam thắng lớn. Đội tuyển " + sample_set.test[0].text, "!!! ---", "Thể thao",
              "\n".join(d.text.split("\n", 1)[-1] for d in sample_set.test[:3]), "0 0. Giá vàng tăng, chứng khoán"]
    ours = model.predict_many(texts, guard=False)
    reference = pipeline.predict_proba(texts)
    assert [p.label for p in ours] == [model.labels[i] for i in reference.argmax(axis=1)]
    assert [p.confidence for p in ours] == pytest.approx(reference.max(axis=1).tolist(), abs=1e-5)


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
    assert model.relevance(doc.text, model.labels) == pytest.approx(1)
    assert model.seen_in_training(sample_set.train[0].text)
    assert not model.seen_in_training(doc.text)


def test_out_of_domain_text_gets_no_label_and_a_reason(sample_set, trained):
    model, _ = trained
    empty, short = model.predict(""), model.predict("Đội tuyển Việt Nam thắng")
    assert empty.label is None and empty.reason.startswith("too short")
    assert short.label is None and short.reason == "too short (5 words)"
    english = model.predict("The committee met on Tuesday to discuss the new budget proposal, which would raise "
                            "spending on schools and roads while cutting taxes for small businesses across the state.")
    assert english.label is None and english.reason == "not Vietnamese" and english.confidence == 0
    assert model.predict(sample_set.test[0].text).reason == ""
    assert model.predict_many([""], guard=False)[0].label in model.labels  # the model itself always answers


def test_card_describes_the_model(trained):
    card = trained[0].card
    assert card["labels"] == sorted(card["labels"]) and len(card["labels"]) == 10
    assert card["training_set"]["source"] == "vntc sample"
    assert {"scikit-learn", "numpy", "python"} <= set(card["versions"])
    assert card["config"]["max_features"] == 30000 and card["features"] <= 30000
    assert "created" in card and "MaxEnt" in card["model"]
    assert len(card["metrics"]["confusion_matrix"]) == 10
    assert card["confidence_floor"]["value"] == trained[0].floor


def test_the_floor_table_is_measured_on_a_held_out_part_of_train_never_the_test_set(sample_set, trained):
    floors = trained[0].card["confidence_floor"]
    held = round(len(sample_set.train) * 0.1)  # 10% of each topic's 20 documents
    assert floors["held_out_docs"] == held and "held-out part of train" in floors["on"]
    table = floors["table"]
    assert [row["floor"] for row in table] == sorted({0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, floors["value"]})
    assert table[0]["coverage"] == 1.0 and table[0]["labelled"] == held
    assert [row["labelled"] for row in table] == sorted((row["labelled"] for row in table), reverse=True)
    assert all(row["coverage"] == round(row["labelled"] / held, 4) for row in table)
    assert all(0 <= row["accuracy"] <= 1 for row in table if row["labelled"])
    assert trained[0].card["training_set"]["train_docs"] == len(sample_set.train)  # then fitted on all of train


def test_save_load_round_trip(tmp_path, sample_set, trained):
    model, _ = trained
    path = model.save(tmp_path / "models" / "topic.npz")
    assert json.loads(card_path(path).read_text(encoding="utf-8"))["labels"] == model.labels
    loaded = TopicClassifier.load(path)
    texts = [d.text for d in sample_set.test[:20]]
    assert loaded.labels == model.labels and loaded.card["metrics"] == model.card["metrics"]
    assert loaded.floor == model.floor
    before, after = model.predict_many(texts), loaded.predict_many(texts)
    assert [label for label, _ in after] == [label for label, _ in before]
    assert [conf for _, conf in after] == pytest.approx([conf for _, conf in before])
    assert not list(tmp_path.glob("models/*.part"))
    with zipfile.ZipFile(path) as archive:  # data only: arrays and JSON
        assert sorted(archive.namelist()) == sorted(m + ".npy" for m in model_file.MEMBERS)


def test_missing_model_says_how_to_make_one(tmp_path):
    with pytest.raises(ModelError, match="no model file.*train"):
        TopicClassifier.load(tmp_path / "nothing.npz")


def test_corrupt_model_is_a_clear_error(tmp_path, trained):
    path = trained[0].save(tmp_path / "topic.npz")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged or not a model"):
        TopicClassifier.load(path)
    path.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="damaged or not a model"):
        TopicClassifier.load(path)


class Payload:
    """A pickle that runs a command when loaded, as a crafted model file would."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (subprocess.call, ([sys.executable, "-c", f"open({self.marker!r}, 'w').write('pwned')"],))


def test_a_crafted_joblib_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "marker"
    evil = tmp_path / "topic.joblib"
    evil.write_bytes(pickle.dumps({"format": "xnews-topic-model", "pipeline": Payload(marker)}, protocol=4))
    with pytest.raises(ModelError, match="pickle-based model.*refused"):
        TopicClassifier.load(evil)
    assert not marker.exists()
    pickle.loads(evil.read_bytes())  # the payload is real: loading it the old way does run it
    assert marker.read_text() == "pwned"


def test_a_pickle_hidden_in_the_archive_is_refused_without_running_it(tmp_path, trained):
    marker = tmp_path / "marker"
    path = trained[0].save(tmp_path / "topic.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in model_file.MEMBERS}
    arrays["idf"] = np.array([Payload(marker)], dtype=object)  # np.save pickles object arrays
    with open(path, "wb") as out:
        np.savez(out, **arrays)
    with pytest.raises(ModelError, match="damaged or not a model"):
        TopicClassifier.load(path)
    assert not marker.exists()


def test_other_archives_and_bad_arrays_are_not_models(tmp_path, trained):
    other = tmp_path / "other.npz"
    with open(other, "wb") as out:
        np.savez(out, weights=np.arange(3))
    with pytest.raises(ModelError, match="not an XNews topic model"):
        TopicClassifier.load(other)
    path = trained[0].save(tmp_path / "topic.npz")
    meta, arrays = model_file.read_model(path)
    arrays["coef"] = arrays["coef"][:, :5]
    model_file.write_model(path, arrays, meta)
    with pytest.raises(ModelError, match="no usable classifier.*shapes"):
        TopicClassifier.load(path)


def test_newer_model_format_is_refused_clearly(tmp_path, trained):
    path = trained[0].save(tmp_path / "topic.npz")
    meta, arrays = model_file.read_model(path)
    model_file.write_model(path, arrays, {**meta, "format_version": 99})
    with pytest.raises(ModelError, match="format 99.*retrain"):
        TopicClassifier.load(path)


def test_special_files_are_refused(tmp_path):
    with pytest.raises(ModelError, match="not a regular file"):
        TopicClassifier.load(tmp_path)
    with pytest.raises(ModelError, match="not a regular file"):
        TopicClassifier.load("/dev/zero")


def test_loading_needs_no_scikit_learn():
    code = ("import sys; from xnews_gui.paths import BUNDLED_MODEL; from xnews_gui.classify.model import "
            "TopicClassifier; m = TopicClassifier.load(BUNDLED_MODEL); m.predict_many(['Hà Nội ' * 30]); "
            "print(sorted(k for k in sys.modules if k.split('.')[0] in ('sklearn', 'joblib', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_training_needs_two_labels():
    data = corpus.TrainingSet([corpus.Doc("một", "A"), corpus.Doc("hai", "A")], [], {})
    with pytest.raises(ValueError, match="two labels"):
        train(data)


def test_the_bundled_model_loads_and_labels_real_articles(sample_set):
    from xnews_gui.paths import RESOURCES

    path = RESOURCES / "model" / "topic.npz"
    assert path.stat().st_size < 10_000_000, "keep the shipped model small"
    model = TopicClassifier.load(path)
    card = model.card
    assert card["command"].startswith("python main.py train --corpus ")
    assert card["metrics"]["accuracy"] > 0.93
    docs = sample_set.test[::4]
    predicted = [label for label, _ in model.predict_many([d.text for d in docs])]
    hits = sum(p == d.label for p, d in zip(predicted, docs))
    assert hits / len(docs) > 0.8


def test_an_old_pickled_model_in_the_data_folder_is_named_not_loaded(store, demo_profile):
    from xnews_gui.services.crawl import start_crawl
    from xnews_gui.crawl import CrawlOptions

    marker = store.root / "marker"
    (store.root / "models").mkdir()
    (store.root / "models" / "topic.joblib").write_bytes(pickle.dumps(Payload(marker), protocol=4))
    said = []
    start_crawl(demo_profile, store, CrawlOptions(), log=said.append)  # set up, not run
    assert any("pickle-based" in line and "retrain" in line for line in said), said
    assert any(line.startswith("classifying with") and line.endswith("topic.npz") for line in said), said
    assert not marker.exists()


@pytest.mark.parametrize("repeat", ["a unigram", "a bigram"])
def test_a_vocabulary_that_repeats_a_term_is_refused(tmp_path, trained, repeat):
    path = trained[0].save(tmp_path / "topic.npz")
    meta, arrays = model_file.read_model(path)
    terms = model_file.terms_from_array(arrays["terms"])
    want_bigram = repeat == "a bigram"
    first = next(i for i, t in enumerate(terms) if (" " in t) == want_bigram)
    other = next(i for i, t in enumerate(terms) if (" " in t) == want_bigram and i != first)
    terms[other] = terms[first]
    arrays["terms"] = model_file.terms_array(terms)
    model_file.write_model(path, arrays, meta)
    with pytest.raises(ModelError, match="repeats terms"):
        TopicClassifier.load(path)


def test_a_small_file_with_millions_of_terms_is_refused_before_they_are_read(tmp_path, trained):
    """98 KB of "a\\n" x 50 million beside 2 features took 4 GB and 13 s to refuse: the terms were decoded and
    split first. Their count is now read from the bytes and refused before."""
    path = trained[0].save(tmp_path / "topic.npz")
    meta, arrays = model_file.read_model(path)
    arrays["terms"] = np.frombuffer(b"a\n" * 5_000_000, dtype=np.uint8)
    model_file.write_model(path, arrays, meta)
    assert path.stat().st_size < 2_000_000
    with pytest.raises(ModelError, match="vocabulary does not fit the weights: .* 5,000,001 terms"):
        TopicClassifier.load(path)
