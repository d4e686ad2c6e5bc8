"""A new model beside the model in use, scored on the same held-out documents neither was trained on.

The new model's held-out documents never include its own training texts (``corpus.build`` removes
them); the ones the model in use was trained on are removed too (its ``train_keys``), so neither
figure is inflated by scoring a model on what it learned from. Qt-free.
"""

from __future__ import annotations

from typing import Sequence

from .corpus import Doc, text_key
from .model import TopicClassifier
from .training import evaluate


def scores(report) -> dict:
    return {"accuracy": round(report.accuracy, 4), "macro_f1": round(report.macro["f1"], 4),
            "f1": {c.label: round(c.f1, 4) for c in report.per_class if c.support}}


def unseen_by(model: TopicClassifier | None, docs: Sequence[Doc]) -> tuple[list[Doc], int]:
    """(documents ``model`` was not trained on, how many were left out)."""
    if model is None or not model.train_keys.size:
        return list(docs), 0
    known = {int(k) for k in model.train_keys}
    kept = [d for d in docs if text_key(d.text) not in known]
    return kept, len(docs) - len(kept)


def compare(new: TopicClassifier, in_use: TopicClassifier | None, in_use_id: str, held_out: Sequence[Doc],
            source: str) -> dict:
    """A card entry: both models on the held-out documents neither saw in training.

    ``source`` says where the held-out documents come from (e.g. "corpus vntc, separate test set")."""
    docs, seen = unseen_by(new, held_out)
    docs, seen_in_use = unseen_by(in_use, docs)
    entry = {"in_use": in_use_id, "held_out": source, "documents": len(docs),
             "left_out": {"trained_on_by_new": seen, "trained_on_by_in_use": seen_in_use}}
    if not docs:
        entry["note"] = "no held-out document was unseen by both models: no comparison"
        return entry
    entry["new"] = scores(evaluate(new, docs))
    if in_use is not None:
        entry["in_use_scores"] = scores(evaluate(in_use, docs))
    return entry


def describe(entry: dict | None, new_name: str = "this model", in_use_name: str = "") -> str:
    """One line for people: 'on 812 held-out documents (...): this model 0.920, model in use 0.935'."""
    if not entry:
        return "not compared with the model in use"
    if "new" not in entry:
        return entry.get("note", "not compared")
    left = entry.get("left_out", {})
    out = (f"on {entry['documents']:,} held-out documents ({entry['held_out']}"
           + (f"; {left['trained_on_by_in_use']:,} the model in use was trained on left out"
              if left.get("trained_on_by_in_use") else "") + "): "
           f"{new_name} accuracy {entry['new']['accuracy']:.3f}, macro-F1 {entry['new']['macro_f1']:.3f}")
    old = entry.get("in_use_scores")
    if old:
        out += (f"; {in_use_name or entry.get('in_use', 'model in use')} accuracy {old['accuracy']:.3f}, "
                f"macro-F1 {old['macro_f1']:.3f}")
    return out
