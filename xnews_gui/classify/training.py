"""Train and evaluate the MaxEnt (multinomial logistic regression) topic model."""

from __future__ import annotations

import platform
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Callable, Sequence

import numpy as np

from ..core.text import Analyzer, segmenter_available
from . import metrics
from .corpus import Doc, TrainingSet, text_key
from .model import FORMAT_VERSION, TopicClassifier

Progress = Callable[[float, str], None]


@dataclass
class TrainConfig:
    """Feature and model settings; the defaults are what the benchmark found best (see card)."""

    bigrams: bool = True
    segment: bool = False  # pyvi word segmentation, when installed
    min_df: int = 2
    max_df: float = 0.9
    max_features: int | None = 200_000  # None: every term seen in >= min_df documents
    sublinear_tf: bool = True
    C: float = 20.0
    class_weight: str | None = "balanced"  # the training corpus' topic mix is not the sites' mix
    max_iter: int = 200
    tol: float = 1e-4


def build_pipeline(config: TrainConfig):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    vectorizer = TfidfVectorizer(
        analyzer=Analyzer(bigrams=config.bigrams, segment=config.segment and segmenter_available()),
        lowercase=False, min_df=config.min_df, max_df=config.max_df, max_features=config.max_features,
        sublinear_tf=config.sublinear_tf, dtype=np.float32,
    )
    maxent = LogisticRegression(C=config.C, max_iter=config.max_iter, tol=config.tol, solver="lbfgs",
                                class_weight=config.class_weight)
    return Pipeline([("tfidf", vectorizer), ("maxent", maxent)])


def _quiet(fraction: float, message: str) -> None:
    pass


def fit_pipeline(texts: Sequence[str], labels: Sequence[str], config: TrainConfig, progress: Progress = _quiet):
    """The fitted scikit-learn pipeline (float32 weights) and its number of features."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    pipeline = build_pipeline(config)
    vectorizer, maxent = pipeline.named_steps["tfidf"], pipeline.named_steps["maxent"]
    progress(0.05, f"reading features of {len(texts)} documents")
    x = vectorizer.fit_transform(texts)
    vectorizer.stop_words_ = None  # the pruned terms: large, and not needed to predict
    progress(0.4, f"fitting MaxEnt on {x.shape[1]} features")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        maxent.fit(x, list(labels))
    maxent.coef_ = maxent.coef_.astype(np.float32)  # halves the file; predictions unchanged
    maxent.intercept_ = maxent.intercept_.astype(np.float32)
    return pipeline, int(x.shape[1])


def train(data: TrainingSet, config: TrainConfig | None = None, progress: Progress = _quiet,
          command: str = "") -> tuple[TopicClassifier, metrics.Report | None]:
    """Fit on ``data.train``; score on ``data.test`` when it has documents. Deterministic."""
    config = config or TrainConfig()
    if len({d.label for d in data.train}) < 2:
        raise ValueError("training needs documents of at least two labels")
    texts = [d.text for d in data.train]
    started = time.perf_counter()
    pipeline, n_features = fit_pipeline(texts, [d.label for d in data.train], config, progress)
    vectorizer, maxent = pipeline.named_steps["tfidf"], pipeline.named_steps["maxent"]
    train_seconds = time.perf_counter() - started

    keys = np.array(sorted({text_key(t) for t in texts}), dtype=np.uint64)
    card = {
        "format_version": FORMAT_VERSION,
        "model": "MaxEnt (multinomial logistic regression) over TF-IDF of normalised Vietnamese "
                 + ("word (pyvi) " if vectorizer.analyzer.segment else "syllable ")
                 + ("uni+bigrams" if config.bigrams else "unigrams"),
        "labels": [str(c) for c in maxent.classes_],
        "config": asdict(config),
        "features": n_features,
        "iterations": int(np.max(maxent.n_iter_)),
        "training_set": data.description,
        "train_seconds": round(train_seconds, 1),
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "versions": library_versions(),
    }
    if command:
        card["command"] = command
    model = TopicClassifier.from_pipeline(pipeline, card, keys)
    scores = None
    if data.test:
        progress(0.9, f"scoring on {len(data.test)} held-out documents")
        predictions = _predict_all(model, data.test)
        scores = metrics.report([d.label for d in data.test], [p.label for p in predictions],
                                _report_labels(model, data.test))
        model.card["metrics"] = scores.to_dict()
        model.card["metrics"]["on"] = "test set, duplicates and documents also in training removed"
        model.floor, model.card["confidence_floor"] = calibrate_floor(
            [p.confidence for p in predictions], [p.label == d.label for p, d in zip(predictions, data.test)])
    progress(1.0, "done")
    return model, scores


def evaluate(model: TopicClassifier, docs: Sequence[Doc]) -> metrics.Report:
    """Scores of the model itself (no out-of-domain guard: every document gets its best label)."""
    return metrics.report([d.label for d in docs], [p.label for p in _predict_all(model, docs)],
                          _report_labels(model, docs))


def _predict_all(model: TopicClassifier, docs: Sequence[Doc], batch: int = 2000) -> list:
    out = []
    for i in range(0, len(docs), batch):
        out.extend(model.predict_many([d.text for d in docs[i : i + batch]], guard=False))
    return out


def _report_labels(model: TopicClassifier, docs: Sequence[Doc]) -> list[str]:
    return list(model.labels) + sorted({d.label for d in docs} - set(model.labels))


FLOOR_GRID = tuple(round(0.05 * i, 2) for i in range(1, 13))  # 0.05 .. 0.60
MAX_FLOOR_LOSS = 0.05  # never refuse more than this share of held-out (in-domain) documents


def calibrate_floor(confidences: Sequence[float], correct: Sequence[bool]) -> tuple[float, dict]:
    """The confidence under which the model is wrong more often than right on held-out documents.

    The highest grid value where the held-out documents below it are at most half right,
    and which drops at most ``MAX_FLOOR_LOSS`` of them; 0 when no value qualifies.
    Returns the floor and a card entry that says how it was found.
    """
    conf = np.asarray(confidences, dtype=float)
    right = np.asarray(correct, dtype=bool)
    floor, below, accuracy_below = 0.0, 0, None
    for t in FLOOR_GRID:
        mask = conf < t
        if not mask.any():
            continue
        if mask.mean() > MAX_FLOOR_LOSS:
            break
        if right[mask].mean() <= 0.5:
            floor, below, accuracy_below = t, int(mask.sum()), float(right[mask].mean())
    entry = {"value": floor, "held_out_docs": int(conf.size), "docs_below": below,
             "accuracy_below": None if accuracy_below is None else round(accuracy_below, 4),
             "rule": f"highest of {FLOOR_GRID[0]}..{FLOOR_GRID[-1]} where held-out documents below it are at "
                     f"most half right, dropping at most {MAX_FLOOR_LOSS:.0%} of them"}
    return floor, entry


def library_versions() -> dict:
    import sklearn

    return {"python": platform.python_version(), "scikit-learn": sklearn.__version__,
            "numpy": np.__version__, "xnews_model_format": FORMAT_VERSION}
