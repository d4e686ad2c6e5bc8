"""Re-labelling the store and training in a process of its own (services/reclassify, model_child), and
`reclassify` on the command line: corrections win, a stop leaves old or new labels, nothing is saved
before the app says so."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import REPO, shared_data
from xnews_gui.classify import corpus
from xnews_gui.services.model_registry import SHIPPED, Registry
from xnews_gui.services import training
from xnews_gui.services.model_child import child_command
from xnews_gui.services.reclassify import reclassify
from xnews_gui.services.training import article_text


def stored_vntc(store, per_topic: int = 20) -> list[corpus.Doc]:
    Article = store.models.Article
    docs = corpus.load_folder(shared_data("vntc", "sample", "Test_Full"), limit_per_label=per_topic)
    with store.writing():
        for i, d in enumerate(docs):
            title, _, body = d.text.partition("\n")
            Article.create(profile="vntc" if i % 2 else "other", url=f"http://x.test/{i}", title=title,
                           body_text=body, content_hash=f"h{i}", section_label=d.label, category="Van hoa",
                           confidence=0.9)
    return docs


def check_labels(store, model) -> None:
    """Every stored article carries the model's label (the user's when corrected)."""
    Article = store.models.Article
    rows = list(Article.select().order_by(Article.id))
    predictions = model.predict_many([article_text(a) for a in rows])
    for a, p in zip(rows, predictions):
        assert a.category == (a.user_label or p.label), a.id
        assert a.confidence == pytest.approx(1.0 if a.user_label else p.confidence)


def test_reclassify_gives_every_article_the_models_label_and_keeps_corrections(store):
    stored_vntc(store)
    store.set_user_label(5, "Kinh doanh")
    registry = Registry(store.root)
    seen = []
    result = reclassify(store, registry, progress=lambda done, total: seen.append((done, total)))
    assert result.total == result.done == 200 and not result.cancelled
    assert result.corrections == 1 and 150 < result.changed < 200  # all were "Van hoa"
    assert sum(result.to.values()) == result.changed and "Van hoa" not in result.to
    assert seen[0] == (0, 200) and seen[-1] == (200, 200)
    check_labels(store, registry.load_active())
    assert registry.labels_from() == SHIPPED
    again = reclassify(store, registry)
    assert again.changed == 0 and "0 labels changed" in again.summary()


def test_a_correction_made_while_reclassify_runs_stays_and_classify_save_keeps_one(store, monkeypatch, cli):
    """The user corrects an article while the store is re-labelled (the app's child process): the chunk read
    before the correction must not write the model's label over it; nor may `classify --article ID --save`."""
    stored_vntc(store)
    registry = Registry(store.root)
    model = registry.load_active()

    class CorrectedMeanwhile:
        def predict_many(self, texts, **kwargs):
            store.set_user_label(5, "Van hoa")  # between the chunk's read and its write
            return model.predict_many(texts, **kwargs)

    monkeypatch.setattr(registry, "load_active", lambda: CorrectedMeanwhile())
    reclassify(store, registry)
    row = store.get_article(5)
    assert (row.user_label, row.category, row.confidence) == ("Van hoa", "Van hoa", 1.0)

    store.set_user_label(7, "Phap luat")
    code, out, err = cli("classify", str(REPO / "resources" / "model" / "topic.npz"), "--article", "7", "--save")
    row = store.get_article(7)
    assert code == 0 and (row.user_label, row.category) == ("Phap luat", "Phap luat")
    assert "keeps the topic you gave it" in err


def test_a_stopped_reclassify_leaves_each_article_with_its_old_or_new_label(store, monkeypatch):
    Article = store.models.Article
    stored_vntc(store)
    monkeypatch.setattr(training, "CHUNK", 50)
    registry = Registry(store.root)
    registry.mark_reclassified("1")  # pretend: another model labelled the store last
    stop = []
    result = reclassify(store, registry, progress=lambda done, total: stop.append(done >= 100),
                        should_stop=lambda: any(stop))
    assert result.cancelled and result.done == 100
    assert "stopped after 100 of 200 articles" in result.summary() and "the other 100 keep" in result.summary()
    rows = list(Article.select().order_by(Article.id))
    assert all(a.category == "Van hoa" and a.confidence == 0.9 for a in rows[100:])
    assert any(a.category != "Van hoa" for a in rows[:100])
    assert registry.labels_from() == "1"  # not the whole store: not marked


def test_reclassify_one_profile_on_the_command_line(cli, store):
    Article = store.models.Article
    stored_vntc(store)
    code, out, err = cli("reclassify", "--profile", "vntc")
    assert code == 0, err
    assert "re-classified 100 articles with the shipped model" in out and "[100%] 100 of 100" in err
    assert {a.category for a in Article.select().where(Article.profile == "other")} == {"Van hoa"}
    code, _, err = cli("reclassify", "--profile", "nobody")
    assert code == 2 and "no articles of a profile named 'nobody'" in err


# --- the child process ----------------------------------------------------------------------------
class Child:
    def __init__(self, request: dict):
        program, args, env = child_command()
        self.process = subprocess.Popen([program, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env={**os.environ, **env})
        self.send(json.dumps(request))

    def send(self, line: str) -> None:
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def until(self, *kinds: str) -> tuple[str, object, list]:
        seen = []
        for raw in self.process.stdout:
            message = json.loads(raw)
            seen.append(message)
            if message["kind"] in kinds:
                return message["kind"], message["data"], seen
        raise AssertionError(f"the child ended without {kinds}: {self.process.stderr.read()[-2000:]!r}")

    def close(self) -> int:
        self.process.stdin.close()
        return self.process.wait(30)


@pytest.fixture
def training_request(store):
    Article = store.models.Article
    stored_vntc(store, per_topic=6)
    wrong = Article.select().order_by(Article.id).first()
    store.set_user_label(wrong.id, "Kinh doanh" if wrong.section_label != "Kinh doanh" else "The thao")
    return {"job": "train", "data_dir": str(store.root), "corpus_dir": str(shared_data("vntc", "sample")),
            "cache_dir": str(store.root / "cache"), "stored_articles": True}, wrong.id


def test_training_asks_about_contradicting_corrections_and_saves_only_on_commit(store, training_request):
    request, wrong = training_request
    child = Child(request)
    kind, review, _ = child.until("review", "failed")
    assert kind == "review" and [c["id"] for c in review] == [wrong]
    assert review[0]["user_label"] != review[0]["model_label"]
    child.send("train " + json.dumps({"exclude": [wrong]}))
    kind, ready, seen = child.until("ready", "failed")
    assert kind == "ready", ready
    assert any(m["kind"] == "progress" and "fitting MaxEnt" in m["data"]["message"] for m in seen)
    assert ready["corrections_left_out"] == [wrong]
    comparison = ready["comparison"]
    assert comparison["in_use"] == SHIPPED and comparison["held_out"].endswith("the corpus's test split")
    assert comparison["documents"] > 100 and "in_use_scores" in comparison
    assert ready["store_changes"]["articles"] == 60
    registry = Registry(store.root)
    assert registry.ids() == []  # nothing written before the commit
    child.send("commit")
    kind, done, _ = child.until("done", "failed")
    assert kind == "done" and done["version"] == "1" and child.close() == 0
    assert registry.ids() == ["1"] and registry.active_id() == SHIPPED
    card = registry.get("1").card
    assert card["comparison"] == comparison and card["store_changes"] == ready["store_changes"]


def test_a_cancel_before_the_commit_writes_no_model(store, training_request):
    request, _ = training_request
    child = Child(request)
    child.until("review")
    child.send('train {"exclude": []}')
    child.until("ready")
    child.send("cancel")
    kind, _, _ = child.until("cancelled", "done")
    assert kind == "cancelled" and child.close() == 0
    registry = Registry(store.root)
    assert registry.ids() == [] and not list(registry.versions_dir.glob("*"))


def test_a_training_process_killed_mid_way_leaves_no_model(store, training_request):
    request, _ = training_request
    child = Child(request)
    child.until("review")
    child.send('train {"exclude": []}')
    child.until("progress")
    child.process.kill()
    child.process.wait(10)
    assert Registry(store.root).ids() == []


def test_reclassify_in_the_child_reports_progress_and_its_result(store):
    stored_vntc(store)
    child = Child({"job": "reclassify", "data_dir": str(store.root), "profile": ""})
    kind, result, seen = child.until("done", "failed")
    assert kind == "done" and result["done"] == 200 and result["changed"] > 150, result
    assert any(m["kind"] == "progress" and m["data"].get("done") == 200 for m in seen)
    assert child.close() == 0
    check_labels(store, Registry(store.root).load_active())


def test_a_bad_request_is_one_line(tmp_path):
    program, args, env = child_command()
    done = subprocess.run([program, *args], input=b'{"job": "paint"}\n', capture_output=True,
                          env={**os.environ, **env}, timeout=60)
    message = json.loads(done.stdout.splitlines()[-1])
    assert done.returncode == 2 and message["kind"] == "failed" and "no model job" in message["data"]["message"]
