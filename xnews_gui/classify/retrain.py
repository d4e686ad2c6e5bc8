"""Train a candidate model from a corpus and/or labelled stored articles, beside the model in use.

The candidate is returned, not saved: it joins the data folder's models (``registry.add``) when
the caller commits it, and is used only when the user chooses it (``registry.use``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Sequence

from . import corpus
from .compare import compare, describe
from .corpus import Doc
from .model import TopicClassifier
from .training import Progress, TrainConfig, train


class Cancelled(Exception):
    pass


@dataclass
class Candidate:
    model: TopicClassifier
    comparison: dict  # classify.compare.compare's entry (also in the model's card)
    test_docs: int

    def summary(self) -> str:
        return describe(self.comparison)


def config_from_card(card: dict) -> TrainConfig:
    """The settings a model was made with (unknown keys ignored), so a retrain keeps its size."""
    known = {f.name for f in fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in card.get("config", {}).items() if k in known})


def retrain(in_use: TopicClassifier | None, in_use_id: str, *, corpus_dir: Path | None = None,
            extra_docs: Sequence[Doc] = (), cache_dir: Path | None = None,
            progress: Progress = lambda f, m: None, should_stop: Callable[[], bool] = lambda: False,
            command: str = "Retrain (Classifier screen)") -> Candidate:
    """Train on ``corpus_dir`` (its Train/Test splits) plus ``extra_docs`` (stored articles).

    Stored articles join the training side; when the corpus has no test split, a stratified fifth
    of everything is held out. The candidate and the model in use are then scored on the held-out
    documents that neither was trained on (``classify.compare``)."""
    def check():
        if should_stop():
            raise Cancelled()

    train_docs: list[Doc] = []
    test_docs = None
    sources = []
    if corpus_dir is not None:
        progress(0.01, f"reading {Path(corpus_dir).name}")
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
    config = config_from_card(in_use.card) if in_use is not None else TrainConfig()

    def staged(fraction: float, message: str) -> None:
        check()
        progress(0.03 + 0.85 * fraction, message)

    model, _ = train(data, config, progress=staged, command=command)
    check()
    held_out = ("the corpus's test split" if test_docs is not None
                else data.description.get("test_split", "held-out fraction"))
    comparison = {"in_use": in_use_id, "documents": 0, "note": "nothing was held out"}
    if data.test:
        progress(0.9, f"scoring both models on {len(data.test):,} held-out documents")
        comparison = compare(model, in_use, in_use_id, data.test, f"{' + '.join(sources)}: {held_out}")
    model.card["comparison"] = comparison
    check()
    return Candidate(model, comparison, len(data.test))
