"""Precision, recall, F1 (per class, micro, macro) and the confusion matrix.

Written out rather than borrowed so the definitions are visible: rows of the
confusion matrix are the true labels, columns the predicted ones. A class never
predicted has precision 0 (and one never present has recall 0), as scikit-learn
reports with ``zero_division=0``. For single-label classification micro-P = micro-R
= micro-F1 = accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np


def confusion_matrix(y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, p in zip(y_true, y_pred, strict=True):
        if t in index and p in index:
            matrix[index[t], index[p]] += 1
    return matrix


def _ratio(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


@dataclass
class ClassScores:
    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass
class Report:
    labels: list[str]
    matrix: np.ndarray
    per_class: list[ClassScores] = field(default_factory=list)
    micro: dict = field(default_factory=dict)
    macro: dict = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        total = int(self.matrix.sum())
        return float(np.trace(self.matrix)) / total if total else 0.0

    @property
    def total(self) -> int:
        return int(self.matrix.sum())

    def to_dict(self) -> dict:
        return {
            "labels": list(self.labels),
            "accuracy": round(self.accuracy, 6),
            "micro": {k: round(v, 6) for k, v in self.micro.items()},
            "macro": {k: round(v, 6) for k, v in self.macro.items()},
            "per_class": [
                {"label": c.label, "precision": round(c.precision, 6), "recall": round(c.recall, 6),
                 "f1": round(c.f1, 6), "support": c.support}
                for c in self.per_class
            ],
            "confusion_matrix": self.matrix.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Report":
        return from_matrix(np.asarray(data["confusion_matrix"], dtype=np.int64), list(data["labels"]))

    def format(self) -> str:
        """A plain-text table: per-class P/R/F1, averages, then the confusion matrix."""
        width = max([len(x) for x in self.labels] + [9])
        lines = [f"{'label':<{width}}  precision  recall     f1  support"]
        for c in self.per_class:
            lines.append(f"{c.label:<{width}}  {c.precision:9.4f}  {c.recall:6.4f}  {c.f1:5.4f}  {c.support:7d}")
        for name, avg in (("micro avg", self.micro), ("macro avg", self.macro)):
            lines.append(f"{name:<{width}}  {avg['precision']:9.4f}  {avg['recall']:6.4f}  "
                         f"{avg['f1']:5.4f}  {self.total:7d}")
        lines.append(f"accuracy = {self.accuracy:.4f} on {self.total} documents")
        lines.append("")
        lines.append("confusion matrix (rows: true label, columns: predicted, in the order above)")
        cell = max(5, len(str(int(self.matrix.max()))) + 1 if self.matrix.size else 5)
        header = " " * width + "".join(f"{i:>{cell}d}" for i in range(len(self.labels)))
        lines.append(header)
        for i, label in enumerate(self.labels):
            row = "".join(f"{int(v):>{cell}d}" for v in self.matrix[i])
            lines.append(f"{label:<{width - 3}}{i:>3d}{row}")
        return "\n".join(lines)


def from_matrix(matrix: np.ndarray, labels: Sequence[str]) -> Report:
    matrix = np.asarray(matrix, dtype=np.int64)
    tp = np.diag(matrix).astype(float)
    predicted = matrix.sum(axis=0)
    actual = matrix.sum(axis=1)
    precision = _ratio(tp, predicted)
    recall = _ratio(tp, actual)
    f1 = _ratio(2 * precision * recall, precision + recall)
    per_class = [ClassScores(label, float(p), float(r), float(f), int(s))
                 for label, p, r, f, s in zip(labels, precision, recall, f1, actual)]
    micro_p = float(_ratio(tp.sum(), predicted.sum()))
    micro_r = float(_ratio(tp.sum(), actual.sum()))
    micro_f = float(_ratio(2 * micro_p * micro_r, micro_p + micro_r))
    n = len(labels) or 1
    macro = {"precision": float(precision.sum() / n), "recall": float(recall.sum() / n),
             "f1": float(f1.sum() / n)}
    return Report(list(labels), matrix, per_class,
                  {"precision": micro_p, "recall": micro_r, "f1": micro_f}, macro)


def report(y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str] | None = None) -> Report:
    if labels is None:
        labels = sorted(set(y_true) | set(y_pred))
    return from_matrix(confusion_matrix(y_true, y_pred, labels), labels)
