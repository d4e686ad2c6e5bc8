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


def train(data: TrainingSet, config: TrainConfig | None = None, progress: Progress = _quiet,
          command: str = "") -> tuple[TopicClassifier, metrics.Report | None]:
    """Fit on ``data.train``; score on ``data.test`` when it has documents. Deterministic."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    config = config or TrainConfig()
    if len({d.label for d in data.train}) < 2:
        raise ValueError("training needs documents of at least two labels")
    pipeline = build_pipeline(config)
    vectorizer, maxent = pipeline.named_steps["tfidf"], pipeline.named_steps["maxent"]
    texts = [d.text for d in data.train]
    labels = [d.label for d in data.train]

    progress(0.05, f"reading features of {len(texts)} documents")
    started = time.perf_counter()
    x = vectorizer.fit_transform(texts)
    vectorizer.stop_words_ = None  # the pruned terms: large, and not needed to predict
    progress(0.4, f"fitting MaxEnt on {x.shape[1]} features")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        maxent.fit(x, labels)
    maxent.coef_ = maxent.coef_.astype(np.float32)  # halves the file; predictions unchanged
    maxent.intercept_ = maxent.intercept_.astype(np.float32)
    train_seconds = time.perf_counter() - started

    keys = np.array(sorted({text_key(t) for t in texts}), dtype=np.uint64)
    card = {
        "format_version": FORMAT_VERSION,
        "model": "MaxEnt (multinomial logistic regression) over TF-IDF of normalised Vietnamese "
                 + ("word (pyvi) " if vectorizer.analyzer.segment else "syllable ")
                 + ("uni+bigrams" if config.bigrams else "unigrams"),
        "labels": [str(c) for c in maxent.classes_],
        "config": asdict(config),
        "features": int(x.shape[1]),
        "iterations": int(np.max(maxent.n_iter_)),
        "training_set": data.description,
        "train_seconds": round(train_seconds, 1),
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "versions": library_versions(),
    }
    if command:
        card["command"] = command
    model = TopicClassifier(pipeline, card, keys)
    scores = None
    if data.test:
        progress(0.9, f"scoring on {len(data.test)} held-out documents")
        scores = evaluate(model, data.test)
        model.card["metrics"] = scores.to_dict()
        model.card["metrics"]["on"] = "test set, duplicates and documents also in training removed"
    progress(1.0, "done")
    return model, scores


def evaluate(model: TopicClassifier, docs: Sequence[Doc], batch: int = 2000) -> metrics.Report:
    y_true = [d.label for d in docs]
    y_pred: list[str] = []
    for i in range(0, len(docs), batch):
        y_pred.extend(label for label, _ in model.predict_many([d.text for d in docs[i : i + batch]]))
    labels = list(model.labels) + sorted(set(y_true) - set(model.labels))
    return metrics.report(y_true, y_pred, labels)


def library_versions() -> dict:
    import joblib
    import sklearn

    return {"python": platform.python_version(), "scikit-learn": sklearn.__version__,
            "numpy": np.__version__, "joblib": joblib.__version__, "xnews_model_format": FORMAT_VERSION}
