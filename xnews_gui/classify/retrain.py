"""Retrain from a corpus and/or labelled stored articles, scoring old and new model on the same test set."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Sequence

from . import corpus
from .corpus import Doc
from .model import ModelError, TopicClassifier
from .training import Progress, TrainConfig, evaluate, train


class Cancelled(Exception):
    pass


@dataclass
class RetrainResult:
    path: Path
    card: dict
    before: dict | None  # the previous model on the new test set (accuracy, macro_f1), if it loaded
    after: dict | None
    test_docs: int

    def summary(self) -> str:
        def fmt(s):
            return f"accuracy {s['accuracy']:.3f}, macro-F1 {s['macro_f1']:.3f}" if s else "n/a"

        return f"before: {fmt(self.before)}  ->  after: {fmt(self.after)}  (on {self.test_docs} held-out documents)"


def config_from_card(card: dict) -> TrainConfig:
    """The settings a model was made with (unknown keys ignored), so a retrain keeps its size."""
    known = {f.name for f in fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in card.get("config", {}).items() if k in known})


def _short(report) -> dict:
    return {"accuracy": round(report.accuracy, 4), "macro_f1": round(report.macro["f1"], 4)}


def retrain(old_model: Path | None, out_path: Path, *, corpus_dir: Path | None = None,
            extra_docs: Sequence[Doc] = (), cache_dir: Path | None = None,
            progress: Progress = lambda f, m: None, should_stop: Callable[[], bool] = lambda: False,
            ) -> RetrainResult:
    """Train a new model on ``corpus_dir`` (its Train/Test splits) plus ``extra_docs``; save it to ``out_path``.

    Stored articles (``extra_docs``) join the training side; when the corpus has no test
    split, a stratified fifth of everything is held out. The old model, when it loads, is
    scored on the same held-out documents: that is the "before" figure.
    """
    def check():
        if should_stop():
            raise Cancelled()

    previous = None
    if old_model is not None and Path(old_model).is_file():
        try:
            previous = TopicClassifier.load(Path(old_model))
        except ModelError:
            previous = None
    train_docs: list[Doc] = []
    test_docs = None
    sources = []
    if corpus_dir is not None:
        progress(0.01, f"reading {corpus_dir.name}")
        train_dir, test_dir = corpus.find_splits(Path(corpus_dir), cache_dir)
        train_docs = corpus.load_folder(train_dir)
        test_docs = corpus.load_folder(test_dir) if test_dir is not None else None
        sources.append(f"corpus {Path(corpus_dir).name}")
    if extra_docs:
        train_docs.extend(extra_docs)
        sources.append(f"{len(extra_docs)} stored articles (user label, else section label)")
    if not train_docs:
        raise ValueError("nothing to train on: choose a corpus folder or label some articles")
    check()
    data = corpus.build(train_docs, test_docs, source=" + ".join(sources))
    before = None
    if previous is not None and data.test:
        progress(0.03, "scoring the current model")
        before = _short(evaluate(previous, data.test))
    check()
    config = config_from_card(previous.card) if previous is not None else TrainConfig()

    def staged(fraction: float, message: str) -> None:
        check()
        progress(0.05 + 0.9 * fraction, message)

    model, scores = train(data, config, progress=staged, command="Retrain (Classifier screen)")
    check()
    model.save(Path(out_path))
    progress(1.0, "saved")
    return RetrainResult(Path(out_path), model.card, before, _short(scores) if scores else None, len(data.test))
