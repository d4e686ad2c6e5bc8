"""The data folder's topic models: kept with their cards, one in use, chosen by the user."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import shared_data
from xnews_gui.classify import TrainConfig, corpus, train
from xnews_gui.services.model_registry import SHIPPED, Registry, RegistryError
from xnews_gui.paths import BUNDLED_MODEL


@pytest.fixture(scope="module")
def tiny_model():
    sample = shared_data("vntc", "sample")
    data = corpus.build(corpus.load_folder(sample / "Train_Full", limit_per_label=3), [], source="tiny")
    model, _ = train(data, TrainConfig(max_features=2000, min_df=1))
    return model


def test_a_new_model_is_kept_but_not_used_until_chosen(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    assert registry.active_id() == SHIPPED and registry.active_path() == BUNDLED_MODEL
    first = registry.add(tiny_model)
    second = registry.add(tiny_model)
    assert (first.id, second.id) == ("1", "2")
    assert first.path == tmp_path / "models" / "versions" / "1" / "topic.npz" and first.card["labels"]
    assert (first.path.parent / "topic.card.json").is_file()
    assert registry.active_id() == SHIPPED  # trained is not chosen
    assert [v.id for v in registry.versions()] == [SHIPPED, "1", "2"]

    registry.use("2")
    assert Registry(tmp_path).active_id() == "2" and Registry(tmp_path).active_path() == second.path
    with pytest.raises(RegistryError, match="in use"):
        registry.remove("2")
    with pytest.raises(RegistryError, match="shipped model cannot be removed"):
        registry.remove(SHIPPED)
    registry.remove("1")
    assert registry.ids() == ["2"]
    assert registry.add(tiny_model).id == "3"  # numbers are not reused while a later one exists
    registry.use(SHIPPED)
    assert registry.active_path() == BUNDLED_MODEL
    with pytest.raises(RegistryError, match="no model 'x'"):
        registry.use("x")


def test_a_chosen_model_whose_folder_is_gone_falls_back_to_the_shipped_one(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    registry.use(registry.add(tiny_model).id)
    (registry.versions_dir / "1" / "topic.npz").unlink()
    assert registry.active_id() == SHIPPED


def test_the_floor_and_the_labels_model_are_kept_with_the_choice(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    registry.use(registry.add(tiny_model).id)
    registry.set_floor(0.35)
    assert registry.load_active().floor == pytest.approx(0.35)
    assert registry.active_id() == "1" and registry.labels_from() == SHIPPED
    registry.mark_reclassified("1")
    registry.set_floor(None)
    state = json.loads((tmp_path / "models" / "state.json").read_text())
    assert state == {"active": "1", "floor": None, "labels_from": "1"}
    with pytest.raises(RegistryError):
        registry.set_floor(1.5)
    assert not list((tmp_path / "models").glob("*.part"))


def test_an_older_data_folders_own_model_becomes_version_one_in_use(tmp_path, tiny_model):
    legacy = tiny_model.save(tmp_path / "models" / "topic.npz")
    registry = Registry(tmp_path)
    assert registry.ids() == ["1"] and registry.active_id() == "1"
    assert not legacy.exists() and (registry.versions_dir / "1" / "topic.card.json").is_file()
    assert registry.labels_from() == "1"  # the store was labelled with it


def test_what_a_killed_training_left_is_cleaned_and_never_listed(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    dead = registry.versions_dir / ".staging-999999999"
    dead.mkdir(parents=True)
    (dead / "topic.npz").write_bytes(b"half")
    assert registry.ids() == []
    mine = registry.versions_dir / f".staging-{os.getppid()}"  # a live process: left alone
    mine.mkdir()
    registry.add(tiny_model)
    assert not dead.exists() and mine.exists() and registry.ids() == ["1"]


def test_a_damaged_version_is_listed_without_a_card_and_can_be_removed(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    version = registry.add(tiny_model)
    version.path.write_bytes(b"not a model")
    (version.path.parent / "topic.card.json").unlink()
    listed = {v.id: v for v in registry.versions()}
    assert listed["1"].card == {} and listed[SHIPPED].accuracy > 0.9
    registry.remove("1")
    assert registry.ids() == []


def test_a_version_folder_without_its_model_is_passed_over_and_a_damaged_model_is_not_used(tmp_path, tiny_model):
    registry = Registry(tmp_path)
    left = registry.versions_dir / "2"  # an interrupted removal: a card, no model file
    left.mkdir(parents=True)
    (left / "topic.card.json").write_text("{}")
    assert registry.ids() == []
    assert registry.add(tiny_model).id == "3"  # it took number 2 again and again, forever
    damaged = registry.add(tiny_model)
    damaged.path.write_bytes(damaged.path.read_bytes()[:1000])
    with pytest.raises(RegistryError, match=f"model {damaged.id} cannot be used: .*not a readable model file"):
        registry.use(damaged.id)
    assert registry.active_id() == SHIPPED


def test_train_keeps_its_model_when_the_one_in_use_cannot_be_read(data_dir, cli):
    sample = shared_data("vntc", "sample")
    registry = Registry(data_dir)
    code, _, err = cli("train", "--corpus", str(sample), "--limit-per-label", "20", "--held-out", "0")
    assert code == 0, err
    registry.use("1")
    registry.get("1").path.write_bytes(b"damaged since")
    code, _, err = cli("train", "--corpus", str(sample), "-o", str(data_dir), "--held-out", "0")
    assert code == 2 and "a folder; give the name of the model file" in err  # said before training, not after
    code, out, err = cli("train", "--corpus", str(sample), "--limit-per-label", "20", "--held-out", "0")
    assert code == 0 and "saved as model 2" in out, (out, err)
    assert "warning: not compared with the model in use" in err


def test_a_card_of_the_wrong_shape_loses_those_keys_not_the_listing(data_dir, tiny_model, cli):
    """`models list` died with AttributeError on a card whose "metrics" was a string (a card is data
    from outside: a hand-edited file, another tool's)."""
    registry = Registry(data_dir)
    version = registry.add(tiny_model)
    card = version.path.parent / "topic.card.json"
    card.write_text(json.dumps({"metrics": "x", "training_set": [1], "labels": "abc", "features": True,
                                "created": "2026-12-01T10:00:00+00:00"}), encoding="utf-8")
    listed = {v.id: v for v in registry.versions()}
    assert listed["1"].card == {"created": "2026-12-01T10:00:00+00:00"} and listed["1"].accuracy is None
    code, out, err = cli("models", "list")
    assert code == 0 and "Traceback" not in err and "\n  1        2026-12-01 10:00" in out


@pytest.mark.parametrize("card", [
    {"metrics": {"accuracy": 0.9}},  # no confusion matrix
    {"metrics": {"labels": [1, 2], "confusion_matrix": [[1, 0], [0, 1]]}},
    {"confidence_floor": {"table": ["x"]}},
    {"confidence_floor": {"table": [{"floor": "0.3", "coverage": 0.9}]}},
    {"confidence_floor": {"table": [{"floor": 0.3}]}},
    {"training_set": {"source": "vntc"}},
    {"training_set": {"train_docs": "many"}},
    {"comparison": {"new": {"accuracy": 0.9}, "documents": 10, "held_out": "x"}},
])
def test_evaluate_and_models_list_read_any_card_without_breaking(data_dir, tiny_model, cli, tmp_path, card):
    """Each of these cards broke `evaluate MODEL` or `models list` with a traceback (a card is data from outside)."""
    registry = Registry(data_dir)
    version = registry.add(tiny_model)
    (version.path.parent / "topic.card.json").write_text(json.dumps(card), encoding="utf-8")
    code, out, err = cli("models", "list")
    assert code == 0 and "Traceback" not in err and "\n  1 " in out, (out, err)
    model = tmp_path / "m.npz"
    tiny_model.card = card
    tiny_model.save(model)
    code, out, err = cli("evaluate", str(model))
    assert "Traceback" not in err and (code == 0 or (code == 2 and err.startswith("error: ")
                                                     and len(err.strip().splitlines()) == 1)), (out, err)
