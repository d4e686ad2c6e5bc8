"""Train and evaluate the MaxEnt (multinomial logistic regression) topic model.

The model card (``model.card``, saved beside the model as ``<name>.card.json`` and inside it) holds:
``model``, ``labels``, ``config`` (``TrainConfig``), ``features``, ``iterations``, ``training_set``,
``train_seconds``, ``created``, ``versions``, ``command``; when the training set has a test split,
``metrics`` (``metrics.Report.to_dict()`` on the test set de-duplicated against train, with ``on``) and,
when that removed documents, ``metrics_original_split`` (the same on the test set as given); when a part
of train was held out (``config.held_out``), ``confidence_floor``: ``value`` (the model's default floor),
``held_out_docs``, ``docs_below``, ``accuracy_below``, ``rule``, ``on`` (which documents) and ``table``,
a list of ``{"floor", "coverage", "labelled", "accuracy"}`` rows by rising floor (``floor_table``; accuracy
None when no document is labelled). Keys are only ever added; readers ignore those they do not know.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Callable, Sequence

import numpy as np

from ..core.text.text import Analyzer, segmenter_available
from ..core.versions import library_versions
from . import metrics
from .corpus import Doc, TrainingSet, stratified_split, text_key
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
    held_out: float = 0.1  # share of train kept from a first fit to measure the confidence floors (0: none)


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
    """Fit on ``data.train``; score on ``data.test`` when it has documents. Deterministic.

    With ``config.held_out``, a first fit leaves a stratified share of train aside: its answers on
    that share give the confidence-floor table and the default floor (never the test set's); the
    model itself is then fitted on all of train."""
    config = config or TrainConfig()
    if len({d.label for d in data.train}) < 2:
        raise ValueError("training needs documents of at least two labels")
    started = time.perf_counter()
    floors = None
    fit_docs, held = _held_out_split(data.train, config.held_out)
    if held:
        progress(0.02, f"first fit on {len(fit_docs)} documents, {len(held)} held out to measure confidence floors")
        probe, _ = fit_pipeline([d.text for d in fit_docs], [d.label for d in fit_docs], config,
                                lambda f, m: progress(0.02 + 0.4 * f, m))
        answers = _predict_all(TopicClassifier.from_pipeline(probe), held)
        floors = confidence_floors([p.confidence for p in answers], [p.label == d.label for p, d in zip(answers, held)],
                                   held_out_note(len(held), config.held_out))
        progress(0.45, "fitting on all of train")
        stage = lambda f, m: progress(0.45 + 0.45 * f, m)  # noqa: E731
    else:
        stage = progress
    texts = [d.text for d in data.train]
    pipeline, n_features = fit_pipeline(texts, [d.label for d in data.train], config, stage)
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
        "versions": card_versions(),
    }
    if command:
        card["command"] = command
    model = TopicClassifier.from_pipeline(pipeline, card, keys)
    if floors is not None:
        model.floor, model.card["confidence_floor"] = floors["value"], floors
    scores = None
    if data.test:
        progress(0.9, f"scoring on {len(data.test)} held-out documents")
        predictions = _predict_all(model, data.test)
        scores = metrics.report([d.label for d in data.test], [p.label for p in predictions],
                                _report_labels(model, data.test))
        model.card["metrics"] = scores.to_dict()
        model.card["metrics"]["on"] = "test set, duplicates and documents also in training removed"
    if data.original_test and len(data.original_test) != len(data.test):
        progress(0.95, f"scoring on the {len(data.original_test)} documents of the test set as given")
        model.card["metrics_original_split"] = {**evaluate(model, data.original_test).to_dict(),
                                                "on": "test set as given (the published protocol: its duplicates "
                                                      "and documents also in training kept)"}
    progress(1.0, "done")
    return model, scores


def _held_out_split(docs: Sequence[Doc], share: float, seed: int = 13) -> tuple[list[Doc], list[Doc]]:
    """(documents to fit, documents held out), or (all, []) when there is nothing to hold out: no share,
    or too few documents for every label to keep a few in the fit."""
    if not share or len(docs) < 50:
        return list(docs), []
    fit, held = stratified_split(list(docs), share, seed)
    if len({d.label for d in fit}) < len({d.label for d in docs}) or not held:
        return list(docs), []
    return fit, held


def held_out_note(n_docs: int, share: float) -> str:
    return (f"held-out part of train: {n_docs} documents ({share:.0%}, stratified, seed 13) that the model "
            "measuring them was not fitted on; the model itself is then fitted on all of train")


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
FLOOR_TABLE = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


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


def floor_table(confidences: Sequence[float], correct: Sequence[bool], floors: Sequence[float] = FLOOR_TABLE
                ) -> list[dict]:
    """For each floor: the share of documents given a topic (coverage), how many, and how often that topic
    is right (accuracy; None when none is labelled)."""
    conf = np.asarray(confidences, dtype=float)
    right = np.asarray(correct, dtype=bool)
    rows = []
    for f in floors:
        labelled = conf >= f
        n = int(labelled.sum())
        rows.append({"floor": float(f), "coverage": round(n / conf.size, 4) if conf.size else 0.0,
                     "labelled": n, "accuracy": round(float(right[labelled].mean()), 4) if n else None})
    return rows


def confidence_floors(confidences: Sequence[float], correct: Sequence[bool], on: str) -> dict:
    """The card's ``confidence_floor`` entry: the default floor (``calibrate_floor``), how it was found, and
    the coverage-vs-accuracy ``table`` (``FLOOR_TABLE`` and the default floor), measured on held-out
    documents (``on``)."""
    floor, entry = calibrate_floor(confidences, correct)
    return {**entry, "on": on, "table": floor_table(confidences, correct, sorted({*FLOOR_TABLE, floor}))}


def card_versions() -> dict:
    """What the model was made with: the libraries that shape XNews's outputs and the model format."""
    return {**library_versions(), "xnews_model_format": FORMAT_VERSION}
