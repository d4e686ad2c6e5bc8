"""The topic classifier the crawler and the app use: MaxEnt weights as plain arrays.

A model is data: the vocabulary, the IDF weights, the coefficients and intercepts
of the multinomial logistic regression, its labels and its card (see
``model_file`` for the file). Prediction is NumPy arithmetic on those arrays -
no scikit-learn at load or predict time - and gives the same labels as the
scikit-learn pipeline it was trained as.

``predict_many(texts, floor=None)`` answers ``Prediction`` pairs ``(label, confidence)``;
``label`` is None when the text is out of the model's domain, and
``Prediction.reason`` says why ("too short (12 words)", "not Vietnamese",
"low confidence (31% < 40%)"). The confidence floor is the caller's choice (``floor``),
by default the model's (``TopicClassifier.floor``, from its card); the card's
``confidence_floor.table`` shows what each floor leaves unlabelled and how often the rest is right.
"""

from __future__ import annotations

import json
from itertools import chain, repeat
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..core.text.text import segmented_phrases
from . import model_file
from .card_check import well_formed_card
from .domain import out_of_domain
from .model_file import FORMAT, FORMAT_VERSION, ModelFileError
from .code_table import CodeRanks
from .syllable_ids import SyllableIds

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelError", "Prediction", "TopicClassifier", "card_path"]

DEFAULT_FLOOR = 0.0  # models without a calibrated floor label everything in the domain


class ModelError(RuntimeError):
    """A model file that cannot be used; the message says why and what to do."""


def card_path(model_path: Path) -> Path:
    model_path = Path(model_path)
    stem = model_path.name
    for suffix in (".npz", ".joblib"):
        stem = stem.removesuffix(suffix)
    return model_path.with_name(stem + ".card.json")


class Prediction(tuple):
    """``(label, confidence)``, unpacked as a pair; ``label`` None means "no topic", ``reason`` says why."""

    def __new__(cls, label: str | None, confidence: float, reason: str = ""):
        self = super().__new__(cls, (label, confidence))
        self.reason = reason
        return self

    @property
    def label(self) -> str | None:
        return self[0]

    @property
    def confidence(self) -> float:
        return self[1]

    def __repr__(self) -> str:
        return f"Prediction({self[0]!r}, {self[1]:.4f}, {self.reason!r})"


class TopicClassifier:
    """MaxEnt over TF-IDF of normalised syllable (or word) uni/bigrams, from arrays."""

    def __init__(self, *, labels: Sequence[str], terms: Sequence[str], idf: np.ndarray, coef: np.ndarray,
                 intercept: np.ndarray, features: dict, card: dict | None = None,
                 train_keys: np.ndarray | None = None, floor: float = DEFAULT_FLOOR):
        self.labels: list[str] = [str(x) for x in labels]
        self.terms = list(terms)
        self._build_lookup()
        self.idf = np.asarray(idf, dtype=np.float32)
        # features x classes, contiguous (a term's weights are one row); coef is its transpose (a view)
        self._weights = np.ascontiguousarray(np.asarray(coef, dtype=np.float32).T)
        self.coef = self._weights.T
        self.intercept = np.asarray(intercept, dtype=np.float32)
        self.features = {"bigrams": True, "segment": False, "sublinear_tf": True, "norm": "l2", **features}
        self.floor = floor
        self.card = well_formed_card(card or {})
        self.card.setdefault("labels", self.labels)
        self.train_keys = train_keys if train_keys is not None else np.zeros(0, dtype=np.uint64)
        _check_shapes(self)

    @classmethod
    def from_pipeline(cls, pipeline, card: dict | None = None, train_keys: np.ndarray | None = None,
                      floor: float = DEFAULT_FLOOR) -> "TopicClassifier":
        """The arrays of a fitted scikit-learn ``tfidf -> maxent`` pipeline (training only)."""
        vectorizer, maxent = pipeline.named_steps["tfidf"], pipeline.named_steps["maxent"]
        terms = [""] * len(vectorizer.vocabulary_)
        for term, column in vectorizer.vocabulary_.items():
            terms[column] = term
        analyzer = vectorizer.analyzer
        features = {"bigrams": bool(analyzer.bigrams), "segment": bool(analyzer.segment),
                    "sublinear_tf": bool(vectorizer.sublinear_tf), "norm": vectorizer.norm}
        return cls(labels=[str(c) for c in maxent.classes_], terms=terms, idf=vectorizer.idf_,
                   coef=maxent.coef_, intercept=maxent.intercept_, features=features, card=card,
                   train_keys=train_keys, floor=floor)

    @property
    def floor(self) -> float:
        """The confidence under which ``predict_many`` gives no topic, unless told another one."""
        return self._floor

    @floor.setter
    def floor(self, value: float) -> None:
        self._floor = check_floor(value)

    # --- prediction ---------------------------------------------------------
    def predict(self, text: str, floor: float | None = None) -> Prediction:
        return self.predict_many([text], floor=floor)[0]

    def predict_many(self, texts: Sequence[str], guard: bool = True,
                     pieces: Sequence[list[bytes]] | None = None, floor: float | None = None) -> list[Prediction]:
        """One ``Prediction`` per text; with ``guard``, out-of-domain texts get no label, and neither do
        texts whose best topic's confidence is under ``floor`` (default: the model's ``floor``; 0 labels
        every text in the domain). ``pieces``: each text's ``core.text.pieces`` when the caller has them
        already (they are not cut again)."""
        floor = self._floor if floor is None else check_floor(floor)
        if not len(texts):
            return []
        if pieces is not None and len(pieces) != len(texts):
            raise ValueError(f"{len(pieces)} texts' pieces for {len(texts)} texts")
        probs, reasons = self._probabilities(texts, guard, pieces)
        best = probs.argmax(axis=1).tolist()
        confidences = probs[np.arange(len(best)), best].tolist()
        out = []
        for i, confidence, reason in zip(best, confidences, reasons or repeat("")):
            if guard:
                if reason:
                    out.append(Prediction(None, 0.0, reason))
                    continue
                if confidence < floor:
                    out.append(Prediction(None, confidence, f"low confidence ({confidence:.0%} < {floor:.0%})"))
                    continue
            out.append(Prediction(self.labels[i], confidence))
        return out

    def proba(self, text: str) -> dict[str, float]:
        probs = self._probabilities([text], guard=False)[0][0]
        return {label: float(p) for label, p in zip(self.labels, probs)}

    def relevance(self, text: str, topics: Iterable[str]) -> float:
        """Probability mass on ``topics``: a topic-relevance score for a focused crawl."""
        wanted = set(topics)
        return sum(p for label, p in self.proba(text).items() if label in wanted)

    def seen_in_training(self, text: str) -> bool:
        from .corpus import text_key

        return bool(self.train_keys.size) and bool(np.isin(np.uint64(text_key(text)), self.train_keys))

    def _probabilities(self, texts: Sequence[str], guard: bool,
                       pieces: Sequence[list[bytes]] | None = None) -> tuple[np.ndarray, list[str] | None]:
        """Class probabilities of each text, and with ``guard`` why each is out of the domain ('' if not)."""
        syllables = self._syllables
        if self.features["segment"]:  # pyvi words: the words of each text as strings, then their ids
            groups = [segmented_phrases(t) for t in texts]
            # the guard reads syllables, as for every model: "cán_bộ" is two Vietnamese syllables, not a
            # foreign word (pyvi's "_" made most Vietnamese texts "not Vietnamese")
            reasons = [out_of_domain([s for w in chain.from_iterable(g) for s in w.split("_") if s])
                       for g in groups] if guard else None
            streams = [syllables.words_stream(g) for g in groups]
        else:
            streams = [syllables.stream(t) for t in texts] if pieces is None else list(map(syllables.stream_of, pieces))
            reasons = [] if guard else None
        parts = []
        for ids, rows, n_docs in syllables.chunks(streams):
            parts.append(self._proba(ids, rows, n_docs))
            if guard and not self.features["segment"]:
                reasons += syllables.out_of_domain(ids, rows, n_docs)
        return np.concatenate(parts), reasons

    def _build_lookup(self) -> None:
        """Syllable ids, and the column of each known unigram and bigram of ids (no strings per bigram).
        One pass over the terms: a model load is part of every crawl's start-up."""
        syllables: dict[str, int] = {}
        new_id = syllables.setdefault
        unigram_ids, unigram_columns, lefts, rights, columns = [], [], [], [], []
        for column, term in enumerate(self.terms):
            parts = term.split(" ")
            if len(parts) == 1:
                unigram_ids.append(new_id(parts[0], len(syllables)))
                unigram_columns.append(column)
            elif len(parts) == 2:
                lefts.append(new_id(parts[0], len(syllables)))
                rights.append(new_id(parts[1], len(syllables)))
                columns.append(column)
            else:
                raise ValueError(f"term {term!r} is neither a unigram nor a bigram")
        self._syllable_id = syllables
        self._syllables = SyllableIds(syllables)
        width = self._syllables.size  # a bigram of ids is the code left * width + right
        self._unigram_column = np.full(width, -1, dtype=np.intp)  # ids past the vocabulary: no column
        self._unigram_column[np.array(unigram_ids, dtype=np.intp)] = unigram_columns
        codes = np.array(lefts, dtype=np.int64) * width + np.array(rights, dtype=np.int64)
        order = np.argsort(codes, kind="stable")
        self._bigram_codes = codes[order]
        self._bigram_columns = np.array(columns, dtype=np.intp)[order]
        self._bigram_ranks = CodeRanks(self._bigram_codes, width * width)
        self._width = width
        # a repeated term: two unigrams of one syllable, or two bigrams of one code
        self._distinct_terms = len(set(unigram_ids)) + codes.size \
            - np.count_nonzero(self._bigram_codes[1:] == self._bigram_codes[:-1])

    def _term_counts(self, ids: np.ndarray, rows: np.ndarray, n_docs: int):
        """(row, column, count) of every known term in each document, as TfidfVectorizer counts them,
        ordered by row then column."""
        cols = [self._unigram_column.take(ids)]  # take: quicker than [...]
        term_rows = [rows]
        if self.features["bigrams"] and self._bigram_codes.size:
            # every pair of neighbours: one with a gap or an unknown syllable is no bigram of the model
            ranks = self._bigram_ranks.rank(ids[:-1].astype(np.int64) * self._width + ids[1:])
            hit = np.flatnonzero(ranks >= 0)
            cols.append(self._bigram_columns.take(ranks.take(hit)))
            term_rows.append(rows.take(hit))
        col = np.concatenate(cols)
        term = col >= 0
        col, row = col[term], np.concatenate(term_rows)[term]
        # count (row, column) pairs in a table over the columns the chunk uses (a bincount, no
        # sort): its non-zero cells come out ordered by row, then column
        present = np.zeros(len(self.terms), dtype=bool)
        present[col] = True
        used = np.flatnonzero(present)
        compact = np.empty(len(self.terms), dtype=np.int64)
        compact[used] = np.arange(used.size)
        table = np.bincount(row * used.size + compact.take(col), minlength=n_docs * used.size)
        cells = np.flatnonzero(table > 0)  # a bool array: NumPy's branch-free path, 3x quicker
        return cells // used.size, used.take(cells % used.size), table.take(cells)

    def _proba(self, ids: np.ndarray, rows: np.ndarray, n_docs: int) -> np.ndarray:
        """Class probabilities, the arithmetic of TfidfVectorizer + LogisticRegression.predict_proba."""
        decision = np.zeros((n_docs, self._weights.shape[1]), dtype=np.float64)
        row_ids, col_ids, counts = self._term_counts(ids, rows, n_docs)
        if col_ids.size:
            values = counts.astype(np.float32)
            if self.features["sublinear_tf"]:
                values = np.log(values) + np.float32(1)
            values *= self.idf.take(col_ids)
            if self.features["norm"] == "l2":
                norms = np.sqrt(np.bincount(row_ids, weights=values.astype(np.float64) ** 2, minlength=n_docs))
                values = values / norms.take(row_ids).astype(np.float32)
            # each document's sum of its terms' rows of weights (pairwise summation: to ~1e-16 the
            # sequential sums of scikit-learn's sparse product, whatever documents share the chunk)
            starts = np.flatnonzero(np.r_[True, row_ids[1:] != row_ids[:-1]])
            rows_of_weights = np.take(self._weights, col_ids, axis=0)  # 2x quicker than [col_ids]
            decision[row_ids[starts]] = np.add.reduceat(rows_of_weights.astype(np.float64) * values[:, None],
                                                         starts, axis=0)
        decision += self.intercept
        if decision.shape[1] == 1:  # two labels: scikit-learn's logistic, not a softmax
            positive = 1.0 / (1.0 + np.exp(-decision[:, 0]))
            return np.column_stack([1.0 - positive, positive])
        decision -= decision.max(axis=1, keepdims=True)
        np.exp(decision, out=decision)
        decision /= decision.sum(axis=1, keepdims=True)
        return decision

    # --- persistence --------------------------------------------------------
    def save(self, path: Path) -> Path:
        path = Path(path)
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "labels": self.labels,
                "features": self.features, "floor": self.floor, "card": self.card}
        arrays = {"terms": model_file.terms_array(self.terms), "idf": self.idf, "coef": np.ascontiguousarray(self.coef),
                  "intercept": self.intercept, "train_keys": np.asarray(self.train_keys, dtype=np.uint64)}
        model_file.write_model(path, arrays, meta)
        card_path(path).write_text(json.dumps(self.card, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> "TopicClassifier":
        """Read a model file; never runs code from it (see ``model_file``)."""
        path = Path(path)
        try:
            meta, arrays = model_file.read_model(path)
            idf = arrays["idf"]
            terms = model_file.terms_from_array(arrays["terms"], idf.shape[0] if idf.ndim == 1 else -1)
        except ModelFileError as exc:
            raise ModelError(str(exc)) from None
        features = meta.get("features")
        labels = meta.get("labels")
        floor = meta.get("floor", DEFAULT_FLOOR)
        if (not isinstance(features, dict) or not isinstance(labels, list)
                or not isinstance(floor, (int, float)) or not isinstance(meta.get("card", {}), dict)):
            raise ModelError(f"{path} is not an XNews topic model (bad metadata)")
        try:
            return cls(labels=labels, terms=terms, idf=arrays["idf"], coef=arrays["coef"],
                       intercept=arrays["intercept"], features=features, card=meta.get("card"),
                       train_keys=arrays["train_keys"], floor=floor)
        except (ValueError, TypeError) as exc:
            raise ModelError(f"{path} holds no usable classifier ({exc}); retrain it") from None


def _check_shapes(model: TopicClassifier) -> None:
    n_classes, n_features = len(model.labels), len(model.terms)
    rows = 1 if n_classes == 2 else n_classes
    if n_classes < 2 or len(set(model.labels)) != n_classes:
        raise ValueError("a model needs at least two distinct labels")
    if model.coef.shape != (rows, n_features) or model.intercept.shape != (rows,) or model.idf.shape != (n_features,):
        raise ValueError(f"array shapes do not agree: coef {model.coef.shape}, intercept {model.intercept.shape}, "
                         f"idf {model.idf.shape}, {n_features} terms, {n_classes} labels")
    if model._distinct_terms != n_features:
        raise ValueError("the vocabulary repeats terms")
    for name in ("idf", "coef", "intercept"):
        if not np.all(np.isfinite(getattr(model, name))):
            raise ValueError(f"{name} holds values that are not finite")
    if model.train_keys.dtype != np.uint64 or model.train_keys.ndim != 1:
        raise ValueError("train_keys must be a list of uint64")
    features = model.features
    if not all(isinstance(features.get(k), bool) for k in ("bigrams", "segment", "sublinear_tf")) \
            or features.get("norm") not in ("l2", None):
        raise ValueError(f"unknown feature settings {features}")


def check_floor(value) -> float:
    """A confidence floor: a number in [0, 1) (1 would refuse every text), else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0.0 <= value < 1.0:
        raise ValueError(f"confidence floor {value!r} is not a number in [0, 1)")
    return float(value)
