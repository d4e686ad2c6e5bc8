"""The Classifier screen, driven with real clicks: models, card, scores, heat map, topics, hide, Retrain."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402

from tests.conftest import shared_data  # noqa: E402
from xnews_gui.classify import TrainConfig, corpus, train  # noqa: E402
from xnews_gui.services.model_registry import SHIPPED, Registry  # noqa: E402
from xnews_gui.ui.classifier_view import ClassifierView  # noqa: E402


@pytest.fixture(scope="module")
def small_model():
    sample = shared_data("vntc", "sample")
    # trained on part of the sample so that Retrain (on all of it) has something to improve
    data = corpus.build(corpus.load_folder(sample / "Train_Full", limit_per_label=4),
                        corpus.load_folder(sample / "Test_Full"), source="vntc sample, 4 per topic")
    model, _ = train(data, TrainConfig(max_features=5000, min_df=1))
    return model


@pytest.fixture
def data_with_model(tmp_path, small_model):
    """A data folder whose model in use is the small one (model 1)."""
    data = tmp_path / "data"
    registry = Registry(data)
    registry.use(registry.add(small_model).id)
    return data


def click(qtbot, widget, pos=None):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos if pos is not None else widget.rect().center())


def click_row(qtbot, table, row, col=0):
    rect = table.visualItemRect(table.item(row, col))
    click(qtbot, table.viewport(), rect.center())


@pytest.fixture
def view(qtbot, data_with_model):
    calls = []
    v = ClassifierView(data_with_model, label_counts=[("The thao", 12), ("Kinh doanh", 5), ("Tech", 2)],
                       hidden={"Vi tinh"}, on_hidden_changed=lambda name, hidden: calls.append((name, hidden)),
                       corpus_dir=shared_data("vntc", "sample"))
    v.calls = calls
    qtbot.addWidget(v)
    v.resize(1200, 760)
    v.show()
    qtbot.waitUntil(lambda: v.counts_table.rowCount() > 0, timeout=5000)
    return v


def test_shows_the_model_in_use_its_card_scores_heat_map_and_topics(view):
    card = Registry(view.data_dir).get("1").card
    assert "Topic model in use: <b>Model 1</b>" in view.active_label.text()
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
    models = view.models.table
    assert [models.item(r, 0).text() for r in range(models.rowCount())] == ["Model 1  ● in use", "Shipped model"]


def test_topics_are_shown_in_vietnamese_and_kept_as_labels(view):
    shown = [view.counts_table.item(r, 0).text() for r in range(view.counts_table.rowCount())]
    assert shown[:2] == ["Thể thao", "Kinh doanh"] and "Vi tính" in shown and "Tech" in shown
    assert "The thao" not in shown and "Vi tinh" not in shown
    zeros = shown[3:]  # the topics without articles, in Vietnamese order: Đời sống right after Chính trị
    assert zeros.index("Đời sống") == zeros.index("Chính trị Xã hội") + 1
    scores = [view.scores_table.item(r, 0).text() for r in range(10)]
    assert "Chính trị Xã hội" in scores and "Sức khỏe" in scores and "Suc khoe" not in scores
    assert view.heatmap.verticalHeaderItem(0).text() == "Chính trị Xã hội"
    assert "Đời sống" in view.card_fields["Topics"].text()


def _click_hide_box(qtbot, view, label):
    table = view.counts_table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).data(Qt.ItemDataRole.UserRole) == label)
    rect = table.visualItemRect(table.item(row, 2))
    # the check box sits at the left of the cell
    click(qtbot, table.viewport(), QPoint(rect.left() + 10, rect.center().y()))


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


def test_retrain_keeps_a_new_model_beside_the_one_in_use_and_compares_them(qtbot, view):
    progress = []
    view.progress.valueChanged.connect(progress.append)
    with qtbot.waitSignal(view.jobFinished, timeout=120000) as finished:
        click(qtbot, view.retrain_button)
        assert view.cancel_button.isVisible() and view.progress.isVisible()
        assert not view.retrain_button.isEnabled()
    kind, result = finished.args
    assert kind == "train" and result["version"] == "2" and result["in_use"] == "1"
    qtbot.waitUntil(lambda: not view.retraining, timeout=10000)
    registry = Registry(view.data_dir)
    assert registry.active_id() == "1" and "Model 1" in view.active_label.text()  # not used until chosen
    card = registry.get("2").card
    assert card["training_set"]["train_docs"] > 150  # the whole sample, not 4 per topic
    assert card["config"]["max_features"] == 5000  # settings carried over from the model in use
    assert progress and max(progress) >= 85
    assert "Model 2 is trained and kept; model 1 stays in use" in view.status.text()
    # the new model is selected, beside the model in use on the same held-out documents
    qtbot.waitUntil(lambda: view.models.selected_id() == "2", timeout=5000)
    assert view.details.currentWidget() is view.comparison
    c = card["comparison"]
    rows = dict((name, (a, b)) for name, a, b in view.comparison.values())
    assert rows["Accuracy"] == (f"{c['new']['accuracy']:.3f}", f"{c['in_use_scores']['accuracy']:.3f}")
    assert f"same {c['documents']:,} held-out documents" in view.comparison.caption.text()
    assert view.cancel_button.isHidden() and not view.progress.isVisible() and view.retrain_button.isEnabled()


def test_cancel_stops_the_training_and_writes_no_model(qtbot, view):
    registry = Registry(view.data_dir)
    click(qtbot, view.retrain_button)
    qtbot.waitUntil(lambda: "Retraining: " in view.status.text() and view.progress.value() > 0, timeout=30000)
    with qtbot.waitSignal(view.job.ended, timeout=30000):
        click(qtbot, view.cancel_button)
    assert "cancelled; no model was saved" in view.status.text()
    qtbot.wait(300)
    assert registry.ids() == ["1"] and registry.active_id() == "1"
    assert not [p for p in registry.versions_dir.iterdir() if p.name != "1"]


def test_a_broken_model_is_listed_and_explained_not_raised(qtbot, tmp_path, data_with_model):
    registry = Registry(data_with_model)
    registry.use(SHIPPED)
    broken = registry.add(Registry(data_with_model).load_active())
    broken.path.write_bytes(b"not a model")
    (broken.path.parent / "topic.card.json").unlink()
    v = ClassifierView(data_with_model, label_counts=[], hidden=set())
    qtbot.addWidget(v)
    qtbot.waitUntil(lambda: v.models.table.rowCount() == 3, timeout=10000)
    v.models.select("2")
    assert v.card_fields["Accuracy"].text() == "–" and v.scores_table.rowCount() == 0
    # retraining with nothing to train on fails with a message, not a crash
    v.set_corpus_dir(None)
    with qtbot.waitSignal(v.job.ended if v.start_retrain() else None, timeout=60000):
        pass
    assert "nothing to train on" in v.status.text()


def test_uses_the_store_by_default(qtbot, store, make_articles, tmp_path):
    make_articles(3, category="The thao")
    make_articles(1, category="Kinh doanh")
    store.set_category_hidden("Kinh doanh", True)
    v = ClassifierView(store.root, store=store)
    qtbot.addWidget(v)
    qtbot.waitUntil(lambda: v.counts_table.rowCount() > 0, timeout=5000)
    rows = v.label_distribution()
    assert rows[0] == ("The thao", 3, False) and ("Kinh doanh", 1, True) in rows
    v.set_hidden("The thao", True)
    qtbot.waitUntil(lambda: store.hidden_categories() == {"Kinh doanh", "The thao"}, timeout=5000)


def test_counts_follow_the_store_on_show_and_when_articles_arrive(qtbot, store, make_articles):
    """Articles stored after the screen was built show up when it is shown again, and while it is shown."""
    from PySide6.QtWidgets import QTabWidget

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    v = ClassifierView(store.root, store=store)
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
    click(qtbot, tab_bar, tab_bar.tabRect(1).center())
    assert tabs.currentWidget() is v
    qtbot.waitUntil(lambda: ("Suc khoe", 4, False) in v.label_distribution(), timeout=5000)

    make_articles(2, category="The thao")  # while it is shown: a burst of arrivals, one refresh
    for _ in range(5):
        v.schedule_refresh([1])
    qtbot.waitUntil(lambda: ("The thao", 2, False) in v.label_distribution(), timeout=5000)
    assert v.label_distribution()[0] == ("Suc khoe", 4, False)


def test_small_window_clips_no_score_row_and_shows_no_developer_path(qtbot, view, tmp_path):
    view.resize(900, 600)
    tab_bar = view.details.tabBar()
    click(qtbot, tab_bar, tab_bar.tabRect(1).center())
    qtbot.wait(50)
    table = view.scores_table
    scroll = table.parentWidget().parentWidget()  # the scroll area's viewport holds the table whole
    assert table.height() >= table.minimumHeight() and scroll is not None
    assert table.columnWidth(0) >= table.sizeHintForColumn(0) - 1
    view.grab().save(str(tmp_path / "classifier-small.png"))

    click_row(qtbot, view.models.table, view.models.row_of(SHIPPED))
    assert view.models.selected_id() == SHIPPED
    assert view.card_box.title() == "Model card: Shipped model"
    assert not view.card_form.isRowVisible(view.card_fields["Command"])
    click_row(qtbot, view.models.table, view.models.row_of("1"))
    assert view.card_form.isRowVisible(view.card_fields["Command"])  # a model of one's own says how it was made
