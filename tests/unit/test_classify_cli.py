"""`train`, `evaluate` and `classify` through the real command line (xnews_gui.cli.main)."""

import json
import shutil

import pytest

from tests.conftest import shared_data
from xnews_gui.cli import main

@pytest.fixture(scope="module")
def sample():
    return shared_data("vntc", "sample")


@pytest.fixture(scope="module")
def model_file(sample, tmp_path_factory):
    data = tmp_path_factory.mktemp("xnews")
    out = data / "m.npz"
    assert main(["--data-dir", str(data), "train", "--corpus", str(sample), "-o", str(out),
                 "--max-features", "20000"]) == 0
    return out


def test_train_prints_scores_and_writes_model_and_card(model_file, capsys):
    card = json.loads(model_file.with_name("m.card.json").read_text(encoding="utf-8"))
    assert card["command"].startswith("python main.py train --corpus ")
    assert "--max-features 20000" in card["command"]
    assert card["training_set"]["test_split"] == "separate test set"
    assert card["metrics"]["accuracy"] > 0.6


def test_train_defaults_to_the_data_folder_and_holds_out_a_split(sample, tmp_path, capsys):
    """Without -o the model joins the data folder's models, compared with the one in use on the same
    held-out documents, and is not used until chosen."""
    assert main(["--data-dir", str(tmp_path), "train", "--corpus", str(sample / "Train_Full"),
                 "--max-features", "5000"]) == 0
    out = capsys.readouterr().out
    assert "micro avg" in out and "confusion matrix" in out
    card = json.loads((tmp_path / "models" / "versions" / "1" / "topic.card.json").read_text(encoding="utf-8"))
    assert card["training_set"]["test_docs"] == 40  # 20% of 20 per topic
    assert "saved as model 1" in out and "not in use: the shipped model still is" in out
    # the sample's training files are VNTC training files: the shipped model learned from all 40
    # held-out ones, so scoring it on them would flatter it; nothing is left to compare on
    comparison = card["comparison"]
    assert comparison["in_use"] == "shipped" and comparison["left_out"]["trained_on_by_in_use"] == 40
    assert comparison["documents"] == 0 and "in_use_scores" not in comparison
    assert "no held-out document was unseen by both models" in out
    assert not (tmp_path / "models" / "topic.npz").exists()


def test_a_model_trained_for_the_data_folder_is_compared_on_unseen_documents_and_chosen_by_name(sample, tmp_path,
                                                                                                capsys):
    data = str(tmp_path)
    assert main(["--data-dir", data, "train", "--corpus", str(sample), "--max-features", "3000",
                 "--limit-per-label", "4"]) == 0
    out = capsys.readouterr().out
    card = json.loads((tmp_path / "models" / "versions" / "1" / "topic.card.json").read_text(encoding="utf-8"))
    comparison = card["comparison"]
    assert comparison["held_out"].endswith("separate test set") and comparison["documents"] == 40
    assert comparison["new"]["accuracy"] < comparison["in_use_scores"]["accuracy"]  # 4 files per topic: worse
    assert f"model 1 accuracy {comparison['new']['accuracy']:.3f}" in out
    assert f"the shipped model accuracy {comparison['in_use_scores']['accuracy']:.3f}" in out

    assert main(["--data-dir", data, "models", "list"]) == 0
    listed = capsys.readouterr().out
    assert "* shipped" in listed and "\n  1 " in listed and "in use: the shipped model" in listed
    assert main(["--data-dir", data, "models", "use", "1"]) == 0
    assert "model 1 is in use" in capsys.readouterr().out
    assert main(["--data-dir", data, "models", "list"]) == 0
    assert "\n* 1 " in capsys.readouterr().out
    assert main(["--data-dir", data, "models", "remove", "1"]) == 2
    assert "model 1 is in use" in capsys.readouterr().err
    assert main(["--data-dir", data, "models", "use", "shipped"]) == 0
    assert main(["--data-dir", data, "models", "remove", "shipped"]) == 2
    assert main(["--data-dir", data, "models", "use", "9"]) == 2
    assert "no model '9' (models: shipped, 1)" in capsys.readouterr().err
    assert main(["--data-dir", data, "models", "remove", "1"]) == 0
    assert not (tmp_path / "models" / "versions" / "1").exists()


def test_train_without_a_held_out_part_has_no_floor_table(sample, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["--data-dir", str(tmp_path), "train", "--corpus", str(sample), "-o", str(out),
                 "--max-features", "5000", "--held-out", "0"]) == 0
    card = json.loads(out.with_name("m.card.json").read_text(encoding="utf-8"))
    assert "confidence_floor" not in card and "--held-out 0" in card["command"] and card["config"]["held_out"] == 0
    capsys.readouterr()
    assert main(["--data-dir", str(tmp_path), "evaluate", str(out)]) == 0
    assert "the card has no coverage table" in capsys.readouterr().out
    assert main(["--data-dir", str(tmp_path), "train", "--corpus", str(sample), "--held-out", "0.7"]) == 2
    assert "--held-out must lie between 0 and 0.5" in capsys.readouterr().err


def test_train_needs_a_source(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "train"]) == 2
    assert "--corpus" in capsys.readouterr().err


def test_evaluate_prints_the_full_report(model_file, sample, tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "evaluate", str(model_file), "--corpus", str(sample)]) == 0
    out = capsys.readouterr().out
    for part in ("precision", "recall", "micro avg", "macro avg", "confusion matrix", "The thao"):
        assert part in out
    # training documents are never scored: evaluating on the training split leaves nothing
    assert main(["--data-dir", str(tmp_path), "evaluate", str(model_file),
                 "--corpus", str(sample / "Train_Full")]) == 2
    assert "used in training" in capsys.readouterr().err


def test_evaluate_without_corpus_shows_the_card_scores(model_file, tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "evaluate", str(model_file)]) == 0
    assert "scores stored in the model card" in capsys.readouterr().out


def test_classify_files_one_line_each(model_file, sample, tmp_path, capsys):
    files = sorted((sample / "Test_Full" / "The thao").glob("*.txt"))[:3]
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(files[2], folder / "x.txt")
    assert main(["--data-dir", str(tmp_path), "classify", str(model_file), str(files[0]), str(files[1]),
                 str(folder)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    topics = {p.name for p in (sample / "Train_Full").iterdir()}
    for line, path in zip(lines, [files[0], files[1], folder / "x.txt"]):
        name, label, confidence = line.split("\t")
        assert name == str(path) and label in topics and 0 < float(confidence) <= 1


def test_classify_bad_model_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "bad.joblib"
    bad.write_bytes(b"garbage")
    assert main(["--data-dir", str(tmp_path), "classify", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err and len(err.strip().splitlines()) == 1


def _store(store, label_fields, text, url):
    return store.models.Article.create(profile="demo", url=url, title=text[:40], body_text=text, content_hash=url,
                          **label_fields)


def test_classify_article_and_train_from_db(model_file, sample, tmp_path, capsys):
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "articles", "list"]) in (0, 1)  # creates the database
    from xnews_gui.store import Store

    with Store.open(data) as store:
        ids = []
        for i, path in enumerate(sorted((sample / "Train_Full" / "The thao").glob("*.txt"))[:6]):
            ids.append(_store(store, {"section_label": "The thao"}, path.read_text(encoding="utf-16"), f"http://x/t{i}").id)
        for i, path in enumerate(sorted((sample / "Train_Full" / "Kinh doanh").glob("*.txt"))[:6]):
            _store(store, {"section_label": "The thao", "user_label": "Kinh doanh"}, path.read_text(encoding="utf-16"),
                   f"http://x/k{i}")
        _store(store, {}, "không nhãn", "http://x/none")
    capsys.readouterr()
    assert main(["--data-dir", str(data), "classify", str(model_file), "--article", str(ids[0]), "--save"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"article:{ids[0]}\tThe thao\t")

    out_model = tmp_path / "db.npz"
    assert main(["--data-dir", str(data), "train", "--from-db", "-o", str(out_model)]) == 0
    out = capsys.readouterr().out
    assert "12 labelled stored articles" in out
    card = json.loads(out_model.with_name("db.card.json").read_text(encoding="utf-8"))
    assert card["labels"] == ["Kinh doanh", "The thao"]  # the user's correction wins over the section
    assert card["training_set"]["test_docs"] == 2

    with Store.open(data) as store:
        assert store.get_article(ids[0]).category == "The thao"


def test_classify_prints_no_topic_with_the_reason(model_file, tmp_path, capsys):
    english = tmp_path / "english.txt"
    english.write_text("The council approved the new budget on Tuesday after a long debate about schools, "
                       "roads and the cost of housing in the city centre, officials said.", encoding="utf-8")
    short = tmp_path / "short.txt"
    short.write_text("Bão số 3", encoding="utf-8")
    assert main(["--data-dir", str(tmp_path), "classify", str(model_file), str(english), str(short)]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.strip().splitlines()]
    assert lines == [[str(english), "-", "0.0000", "not Vietnamese"], [str(short), "-", "0.0000", "too short (2 words)"]]
