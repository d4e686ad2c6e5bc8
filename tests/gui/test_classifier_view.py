"""The Classifier screen, driven with real clicks: card, scores, heat map, topics, hide, Retrain."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402

from tests.conftest import shared_data  # noqa: E402
from xnews_gui.classify import TopicClassifier, TrainConfig, corpus, train  # noqa: E402
from xnews_gui.ui.classifier_view import ClassifierView  # noqa: E402

SHOTS = Path(os.environ.get("XNEWS_SHOTS", "")) if os.environ.get("XNEWS_SHOTS") else None


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    sample = shared_data("vntc", "sample")
    # trained on part of the sample so that Retrain (on all of it) has something to improve
    data = corpus.build(corpus.load_folder(sample / "Train_Full", limit_per_label=4),
                        corpus.load_folder(sample / "Test_Full"), source="vntc sample, 4 per topic")
    model, _ = train(data, TrainConfig(max_features=5000, min_df=1))
    return model.save(tmp_path_factory.mktemp("model") / "topic.npz")


@pytest.fixture
def view(qtbot, small_model, tmp_path):
    calls = []
    v = ClassifierView(small_model, tmp_path / "data", label_counts=[("The thao", 12), ("Kinh doanh", 5),
                                                                      ("Tech", 2)],
                       hidden={"Vi tinh"}, on_hidden_changed=lambda name, hidden: calls.append((name, hidden)),
                       training_docs=lambda: [], corpus_dir=shared_data("vntc", "sample"))
    v.calls = calls
    qtbot.addWidget(v)
    v.resize(1200, 760)
    v.show()
    qtbot.waitUntil(lambda: v.counts_table.rowCount() > 0, timeout=5000)
    return v


def test_shows_card_scores_heat_map_and_topics(view):
    card = TopicClassifier.load(view.model_path).card
    assert view.card_fields["Accuracy"].text() == f"{card['metrics']['accuracy']:.4f}"
    assert "MaxEnt" in view.card_fields["Model"].text()
    assert view.scores_table.rowCount() == 12  # 10 topics + micro + macro
    assert view.scores_table.item(10, 0).text() == "micro avg"
    assert view.heatmap.rowCount() == 10 and view.heatmap.columnCount() == 10
    assert view.heatmap.horizontalHeaderItem(0).text() == "CTXH"
    matrix = card["metrics"]["confusion_matrix"]
    assert view.heatmap.item(0, 0).text() == (str(matrix[0][0]) if matrix[0][0] else "")
    rows = view.label_distribution()
    assert rows[0] == ("The thao", 12, False) and rows[1] == ("Kinh doanh", 5, False)
    assert ("Vi tinh", 0, True) in rows and ("Tech", 2, False) in rows  # every model topic is listed
    assert len(rows) == 11


def test_topics_are_shown_in_vietnamese_and_kept_as_labels(view):
    shown = [view.counts_table.item(r, 0).text() for r in range(view.counts_table.rowCount())]
    assert shown[:2] == ["Thể thao", "Kinh doanh"] and "Vi tính" in shown and "Tech" in shown
    assert "The thao" not in shown and "Vi tinh" not in shown
    scores = [view.scores_table.item(r, 0).text() for r in range(10)]
    assert "Chính trị Xã hội" in scores and "Sức khỏe" in scores and "Suc khoe" not in scores
    assert view.heatmap.verticalHeaderItem(0).text() == "Chính trị Xã hội"
    assert "Đời sống" in view.card_fields["Topics"].text()


def _click_hide_box(qtbot, view, label):
    table = view.counts_table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).data(Qt.ItemDataRole.UserRole) == label)
    rect = table.visualItemRect(table.item(row, 2))
    # the check box sits at the left of the cell
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left() + 10, rect.center().y()))


def test_marking_a_topic_not_interested_calls_back(qtbot, view):
    seen = []
    view.hiddenChanged.connect(lambda name, hidden: seen.append((name, hidden)))
    _click_hide_box(qtbot, view, "The thao")
    assert view.calls == [("The thao", True)] and seen == [("The thao", True)]
    assert "The thao" in view.hidden
    _click_hide_box(qtbot, view, "Vi tinh")
    assert view.calls[-1] == ("Vi tinh", False)
    assert "hidden" in view.status.text() or "shown" in view.status.text()
    assert "Vi tính" in view.status.text()


def test_retrain_shows_progress_and_before_after(qtbot, view, tmp_path):
    progress = []
    view.progress.valueChanged.connect(progress.append)
    with qtbot.waitSignal(view.modelChanged, timeout=60000) as changed:
        qtbot.mouseClick(view.retrain_button, Qt.MouseButton.LeftButton)
        assert view.retrain_button.text() == "Cancel" and view.progress.isVisible()
    qtbot.waitUntil(lambda: not view.retraining, timeout=10000)
    new_path = changed.args[0]
    assert new_path == tmp_path / "data" / "models" / "topic.npz" and new_path.is_file()
    assert view.model_path == new_path
    assert progress and max(progress) >= 90
    text = view.status.text()
    assert "before: accuracy" in text and "after: accuracy" in text, text
    card = TopicClassifier.load(new_path).card
    assert card["training_set"]["train_docs"] > 150  # the whole sample, not 4 per topic
    assert card["config"]["max_features"] == 5000  # settings carried over from the old model
    qtbot.waitUntil(lambda: view.card_fields["Accuracy"].text() == f"{card['metrics']['accuracy']:.4f}")
    assert view.retrain_button.text() == "Retrain" and not view.progress.isVisible()
    if SHOTS:
        view.grab().save(str(SHOTS / "classifier_view.png"))


def test_cancel_leaves_the_model_unchanged(qtbot, view, tmp_path):
    qtbot.mouseClick(view.retrain_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.retrain_button, Qt.MouseButton.LeftButton)  # now "Cancel"
    qtbot.waitUntil(lambda: not view.retraining, timeout=60000)
    assert "cancelled" in view.status.text()
    assert not (tmp_path / "data" / "models" / "topic.npz").exists()


def test_a_broken_model_is_explained_not_raised(qtbot, tmp_path):
    bad = tmp_path / "topic.joblib"
    bad.write_bytes(b"not a model")
    v = ClassifierView(bad, tmp_path, label_counts=[], hidden=set(), training_docs=lambda: [])
    qtbot.addWidget(v)
    qtbot.waitUntil(lambda: "damaged or not a model" in v.card_fields["Model"].text(), timeout=5000)
    assert v.scores_table.rowCount() == 0 and v.card_fields["Accuracy"].text() == "–"
    # retraining with nothing to train on fails with a message, not a crash
    v.set_corpus_dir(None)
    qtbot.mouseClick(v.retrain_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not v.retraining, timeout=10000)
    assert "nothing to train on" in v.status.text()


def test_uses_the_store_by_default(qtbot, store, make_articles, small_model, tmp_path):
    make_articles(3, category="The thao")
    make_articles(1, category="Kinh doanh")
    store.set_category_hidden("Kinh doanh", True)
    v = ClassifierView(small_model, tmp_path, store=store)
    qtbot.addWidget(v)
    qtbot.waitUntil(lambda: v.counts_table.rowCount() > 0, timeout=5000)
    rows = v.label_distribution()
    assert rows[0] == ("The thao", 3, False) and ("Kinh doanh", 1, True) in rows
    v.set_hidden("The thao", True)
    qtbot.waitUntil(lambda: store.hidden_categories() == {"Kinh doanh", "The thao"}, timeout=5000)


def test_counts_follow_the_store_on_show_and_when_articles_arrive(qtbot, store, make_articles, small_model, tmp_path):
    """Articles stored after the screen was built show up when it is shown again, and while it is shown."""
    from PySide6.QtWidgets import QTabWidget

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    v = ClassifierView(small_model, tmp_path, store=store)
    tabs.addTab(QWidget(), "other")
    tabs.addTab(v, "classifier")
    tabs.resize(1000, 700)
    tabs.show()
    qtbot.waitUntil(lambda: v.counts_table.rowCount() == 10, timeout=5000)
    qtbot.waitUntil(lambda: v._refresh_worker is None, timeout=5000)
    assert all(n == 0 for _, n, _ in v.label_distribution())

    make_articles(4, category="Suc khoe")  # a crawl stored these while another tab was shown
    qtbot.wait(100)
    assert ("Suc khoe", 0, False) in v.label_distribution()
    tab_bar = tabs.tabBar()
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(1).center())
    assert tabs.currentWidget() is v
    qtbot.waitUntil(lambda: ("Suc khoe", 4, False) in v.label_distribution(), timeout=5000)

    make_articles(2, category="The thao")  # while it is shown: a burst of arrivals, one refresh
    for _ in range(5):
        v.schedule_refresh([1])
    qtbot.waitUntil(lambda: ("The thao", 2, False) in v.label_distribution(), timeout=5000)
    assert v.label_distribution()[0] == ("Suc khoe", 4, False)


def test_small_window_clips_no_score_row_and_shows_no_developer_path(qtbot, view, tmp_path):
    from xnews_gui.paths import BUNDLED_MODEL

    view.resize(900, 600)
    qtbot.wait(50)
    table = view.scores_table
    for r in range(table.rowCount()):
        rect = table.visualItemRect(table.item(r, 0))
        assert table.viewport().rect().contains(rect), (table.item(r, 0).text(), rect, table.viewport().rect())
        assert table.columnWidth(0) >= table.sizeHintForColumn(0) - 1
    view.grab().save(str(tmp_path / "classifier-small.png"))

    shipped = ClassifierView(BUNDLED_MODEL, tmp_path / "data", label_counts=[], hidden=set(),
                             training_docs=lambda: [])
    qtbot.addWidget(shipped)
    shipped.show()
    qtbot.waitUntil(lambda: shipped.card_fields["Model"].text() not in ("", "–"), timeout=10000)
    assert shipped.path_label.text() == "the model shipped with XNews"
    assert not shipped.card_form.isRowVisible(shipped.card_fields["Command"])
    assert view.card_form.isRowVisible(view.card_fields["Command"])  # a model of one's own says how it was made
