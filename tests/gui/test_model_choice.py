"""The user chooses the model: a worse model is trained and kept but not used until chosen; once
chosen, Re-classify gives every stored article its label (the user's corrections stay); the
shipped model can be chosen again. All with the mouse, the training and re-labelling in processes
of their own."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.conftest import shared_data
from xnews_gui.paths import BUNDLED_MODEL
from xnews_gui.classify import TopicClassifier, corpus
from xnews_gui.services.model_registry import SHIPPED, Registry
from xnews_gui.services.training import article_text
from xnews_gui.ui.classifier_view import ClassifierView
from xnews_gui.ui.corrections_dialog import CorrectionsDialog

pytestmark = pytest.mark.gui


def click(qtbot, widget, pos=None):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos if pos is not None else widget.rect().center())


def click_row(qtbot, table, row):
    click(qtbot, table.viewport(), table.visualItemRect(table.item(row, 0)).center())


def store_articles(store, folder, copies: int = 1) -> int:
    Article = store.models.Article
    docs = corpus.load_folder(folder)
    with store.writing():
        rows = []
        for k in range(copies):
            for i, d in enumerate(docs):
                title, _, body = d.text.partition("\n")
                rows.append(dict(profile="vntc", url=f"http://x.test/{k}/{i}", title=title, body_text=body,
                                 content_hash=f"h{k}-{i}", section_label=d.label, category="Van hoa", confidence=0.6))
        for start in range(0, len(rows), 400):
            Article.insert_many(rows[start:start + 400]).execute()
    return len(rows)


def small_corpus(tmp_path, per_topic: int = 2):
    """A corpus of 2 training files per topic (and the sample's test files): a worse model."""
    sample = shared_data("vntc", "sample")
    root = tmp_path / "small-corpus"
    for topic in (sample / "Train_Full").iterdir():
        (root / "Train_Full" / topic.name).mkdir(parents=True)
        for path in sorted(topic.glob("*.txt"))[:per_topic]:
            shutil.copy(path, root / "Train_Full" / topic.name / path.name)
    shutil.copytree(sample / "Test_Full", root / "Test_Full")
    return root


def every_article_carries_the_models_label_or_the_users(store, model) -> float:
    Article = store.models.Article
    rows = list(Article.select().order_by(Article.id))
    predictions = model.predict_many([article_text(a) for a in rows])
    right = sum(a.category == (a.user_label or p.label) for a, p in zip(rows, predictions))
    return right / len(rows)


def answer(qtbot, text: str) -> None:
    """Click a button of the message box that is open."""
    qtbot.waitUntil(lambda: any(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=5000)
    box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
    button = next(b for b in box.buttons() if b.text().replace("&", "") == text)
    click(qtbot, button)


def test_train_a_worse_model_choose_it_reclassify_then_the_shipped_one_again(qtbot, store, tmp_path):
    Article = store.models.Article
    stored = store_articles(store, shared_data("vntc", "sample", "Train_Full"))
    corrected = Article.select().where(Article.section_label == "The thao").first()
    store.set_user_label(corrected.id, "Kinh doanh")  # a deliberate wrong correction
    view = ClassifierView(store.root, store=store, corpus_dir=small_corpus(tmp_path))
    qtbot.addWidget(view)
    view.resize(1024, 700)
    view.show()
    registry = Registry(store.root)
    qtbot.waitUntil(lambda: view.models.table.rowCount() == 1, timeout=5000)
    assert "Topic model in use: <b>Shipped model</b>" in view.active_label.text()

    # 1. train: the contradicting correction is shown first; the model is kept, not used
    click(qtbot, view.retrain_button)
    qtbot.waitUntil(lambda: isinstance(getattr(view, "corrections_dialog", None), CorrectionsDialog), timeout=60000)
    dialog = view.corrections_dialog
    assert dialog.table.rowCount() == 1 and dialog.table.item(0, 3).text() == "Kinh doanh"
    assert dialog.table.item(0, 2).text().startswith("Thể thao")
    dialog.grab().save(str(tmp_path / "corrections.png"))
    with qtbot.waitSignal(view.jobFinished, timeout=120000):
        click(qtbot, dialog.train_button)
    assert registry.ids() == ["1"] and registry.active_id() == SHIPPED
    qtbot.waitUntil(lambda: view.models.table.rowCount() == 2, timeout=5000)
    assert "Shipped model" in view.active_label.text()
    comparison = registry.get("1").card["comparison"]
    assert comparison["new"]["accuracy"] < comparison["in_use_scores"]["accuracy"]  # worse, on the same documents
    assert "store_changes" in registry.get("1").card and view.comparison.changes.isVisible()
    view.grab().save(str(tmp_path / "trained.png"))

    # 2. choose it: the screen asks first (it scored worse), then names it
    click_row(qtbot, view.models.table, view.models.row_of("1"))
    with qtbot.waitSignal(view.modelChanged, timeout=10000):
        click(qtbot, view.models.use_button)
        answer(qtbot, "Use it")
    assert registry.active_id() == "1" and "Topic model in use: <b>Model 1</b>" in view.active_label.text()
    assert view.notice.isVisible() and "the shipped model" in view.notice.text()

    # 3. re-classify: every stored article carries model 1's label, or the user's correction
    assert every_article_carries_the_models_label_or_the_users(store, registry.load_active()) < 0.5
    with qtbot.waitSignal(view.jobFinished, timeout=120000) as finished:
        click(qtbot, view.reclassify_button)
    kind, result = finished.args
    assert kind == "reclassify" and result["done"] == stored and result["corrections"] == 1
    assert f"Re-classified {stored:,} articles with model 1: {result['changed']:,} labels changed" in \
        view.status.text()
    assert every_article_carries_the_models_label_or_the_users(store, registry.load_active()) == 1.0
    assert Article.get_by_id(corrected.id).category == "Kinh doanh"
    qtbot.waitUntil(lambda: not view.notice.isVisible(), timeout=5000)

    # 4. the shipped model again
    click_row(qtbot, view.models.table, view.models.row_of(SHIPPED))
    with qtbot.waitSignal(view.modelChanged, timeout=10000):
        click(qtbot, view.models.use_button)
    assert registry.active_id() == SHIPPED and "Shipped model" in view.active_label.text()


def test_reclassify_shows_progress_and_stops_on_cancel(qtbot, store, tmp_path):
    Article = store.models.Article
    stored = store_articles(store, shared_data("vntc", "sample", "Test_Full"), copies=12)
    view = ClassifierView(store.root, store=store)
    qtbot.addWidget(view)
    view.show()
    click(qtbot, view.reclassify_button)
    qtbot.waitUntil(lambda: " of " in view.status.text() and view.progress.value() > 0, timeout=60000)
    assert view.cancel_button.isVisible()
    with qtbot.waitSignal(view.jobFinished, timeout=60000) as finished:
        click(qtbot, view.cancel_button)
    result = finished.args[1]
    assert result["cancelled"] and 0 < result["done"] < stored
    assert f"Stopped after {result['done']:,} of {stored:,} articles" in view.status.text()
    labels = [a.category for a in Article.select(Article.category).order_by(Article.id)]
    assert all(label == "Van hoa" for label in labels[result["done"]:])  # the rest keep their label
    assert Registry(store.root).labels_from() == SHIPPED


def test_the_confidence_floor_is_chosen_on_the_screen_and_used_by_crawls(qtbot, store):
    view = ClassifierView(store.root, store=store)
    qtbot.addWidget(view)
    view.resize(1024, 700)
    view.show()
    tab_bar = view.details.tabBar()
    click(qtbot, tab_bar, tab_bar.tabRect(view.details.indexOf(view.floor_box)).center())
    own = TopicClassifier.load(BUNDLED_MODEL).floor  # the shipped model's own floor, from its card
    qtbot.waitUntil(lambda: f"the model's own ({own:.2f})" in view.floor_box.spin.specialValueText(), timeout=5000)
    spin = view.floor_box.spin  # its text whole, not "odel's own (0.45)"
    edit = spin.lineEdit()
    assert edit.width() >= edit.fontMetrics().horizontalAdvance(spin.specialValueText()), edit.width()
    view.floor_box.spin.setValue(0.7)
    click(qtbot, view.floor_box.apply_button)
    assert Registry(store.root).floor() == pytest.approx(0.7)
    from xnews_gui.services.crawl import ClassifierLoader

    assert ClassifierLoader(store.root)().floor == pytest.approx(0.7)
    assert "0.70, chosen by you" in view.floor_box.note.text() or view.floor_box.value() == 0.7


def test_the_floor_tab_shows_the_cards_trade_table_and_a_row_click_chooses_its_floor(qtbot):
    from xnews_gui.ui.floor_box import FloorBox

    card = {"confidence_floor": {"value": 0.5, "on": "a held-out 10% of the training set (3,371 documents)",
                                 "table": [{"floor": f, "coverage": c, "labelled": int(c * 3371), "accuracy": a}
                                           for f, c, a in ((0.3, 0.99, 0.94), (0.5, 0.972, 0.951),
                                                           (0.7, 0.9, 0.972), (0.9, 0.61, None))]}}
    box = FloorBox()
    qtbot.addWidget(box)
    box.resize(500, 400)
    box.show()
    box.show_for(card, None)
    chosen = []
    box.floorChosen.connect(chosen.append)
    assert box.table.rowCount() == 4 and box.table.item(1, 1).text() == "97.2%" and box.table.item(3, 2).text() == "–"
    assert "a held-out 10% of the training set" in box.note.text() and box.spin.specialValueText().endswith("(0.50)")
    row = box.table.visualItemRect(box.table.item(2, 0))
    click(qtbot, box.table.viewport(), row.center())
    click(qtbot, box.apply_button)
    assert chosen == [0.7]


def test_a_correction_of_an_article_the_model_never_labelled_says_so(qtbot, store):
    """The dialog said "The model in use says: Vi tính (71%)" of an English article the Articles list shows
    with no topic ("not Vietnamese"): the model's word was one the app never showed."""
    from xnews_gui.services.training import corrections_to_review

    english = ("The city council said on Monday that it has approved the budget for the coming year, which "
               "will fund new schools and repairs to the roads that were damaged by the floods last spring. ") * 3
    with store.writing():
        aid = store.models.Article.create(profile="p", url="http://news.test/en-1", title="Council budget",
                                          body_text=english, content_hash="h-en").id
    store.set_user_label(aid, "Politics")
    review = corrections_to_review(store, TopicClassifier.load(BUNDLED_MODEL))
    assert [(c["id"], c["model_label"], c["no_topic"]) for c in review] == [(aid, "", "not Vietnamese")]
    dialog = CorrectionsDialog(review)
    qtbot.addWidget(dialog)
    assert dialog.table.item(0, 2).text() == "no topic: not Vietnamese"
