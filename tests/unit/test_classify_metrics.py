"""P/R/F1 and the confusion matrix, checked by hand."""

import numpy as np
import pytest

from xnews_gui.classify import metrics

#            predicted a  b  c
HAND = [[3, 1, 0],  # true a: 4
        [0, 2, 2],  # true b: 4
        [1, 0, 1]]  # true c: 2


def pairs_from(matrix, labels):
    y_true, y_pred = [], []
    for i, row in enumerate(matrix):
        for j, n in enumerate(row):
            y_true += [labels[i]] * n
            y_pred += [labels[j]] * n
    return y_true, y_pred


def test_confusion_matrix_rows_true_columns_predicted():
    y_true, y_pred = pairs_from(HAND, "abc")
    assert metrics.confusion_matrix(y_true, y_pred, list("abc")).tolist() == HAND
    assert metrics.confusion_matrix(["a"], ["b"], ["a", "b"]).tolist() == [[0, 1], [0, 0]]


def test_per_class_and_averages_on_a_hand_checked_matrix():
    r = metrics.report(*pairs_from(HAND, "abc"), labels=list("abc"))
    a, b, c = r.per_class
    # a: 3 right of 4 predicted a, 3 right of 4 true a
    assert (a.precision, a.recall, a.f1, a.support) == pytest.approx((0.75, 0.75, 0.75, 4))
    # b: 2 of 3 predicted, 2 of 4 true; F1 = 2PR/(P+R) = (2/3)/(7/6) = 4/7
    assert (b.precision, b.recall, b.f1, b.support) == pytest.approx((2 / 3, 0.5, 4 / 7, 4))
    # c: 1 of 3 predicted, 1 of 2 true; F1 = (1/3)/(5/6) = 0.4
    assert (c.precision, c.recall, c.f1, c.support) == pytest.approx((1 / 3, 0.5, 0.4, 2))
    assert r.accuracy == pytest.approx(0.6)
    assert r.micro == pytest.approx({"precision": 0.6, "recall": 0.6, "f1": 0.6})
    assert r.macro["precision"] == pytest.approx((0.75 + 2 / 3 + 1 / 3) / 3)
    assert r.macro["recall"] == pytest.approx((0.75 + 0.5 + 0.5) / 3)
    assert r.macro["f1"] == pytest.approx((0.75 + 4 / 7 + 0.4) / 3)


def test_agrees_with_scikit_learn():
    from sklearn.metrics import f1_score, precision_recall_fscore_support

    rng = np.random.default_rng(3)
    labels = list("abcd")
    y_true = list(rng.choice(labels, 300))
    y_pred = [t if rng.random() < 0.6 else rng.choice(labels[:3]) for t in y_true]  # "d" rarely predicted
    r = metrics.report(y_true, y_pred, labels)
    p, rec, f, s = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    assert [c.precision for c in r.per_class] == pytest.approx(list(p))
    assert [c.recall for c in r.per_class] == pytest.approx(list(rec))
    assert [c.f1 for c in r.per_class] == pytest.approx(list(f))
    assert r.macro["f1"] == pytest.approx(f1_score(y_true, y_pred, labels=labels, average="macro"))
    assert r.micro["f1"] == pytest.approx(f1_score(y_true, y_pred, labels=labels, average="micro"))


def test_a_class_never_predicted_scores_zero_not_nan():
    r = metrics.report(["a", "a", "b"], ["a", "a", "a"], ["a", "b"])
    assert r.per_class[1].precision == 0.0 and r.per_class[1].f1 == 0.0
    assert not np.isnan(r.macro["f1"])


def test_dict_round_trip_and_text():
    r = metrics.report(*pairs_from(HAND, "abc"), labels=list("abc"))
    again = metrics.Report.from_dict(r.to_dict())
    assert again.matrix.tolist() == HAND and again.macro == pytest.approx(r.macro)
    out = r.format()
    assert "micro avg" in out and "macro avg" in out and "confusion matrix" in out
    assert "accuracy = 0.6000 on 10 documents" in out
