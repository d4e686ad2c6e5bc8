"""The topic classifier the crawler and the app use, and how it is saved and loaded.

A model file is a joblib pickle of a dict: the format version, the scikit-learn
pipeline, fingerprints of the training texts (so an evaluation can drop test
documents seen in training) and the model card. The card is also written next to
it as ``<name>.card.json`` for people and tools. Like any pickle, a model file can
run code when loaded: load only models you made or trust (the bundled one, your
own ``train`` output).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

FORMAT = "xnews-topic-model"
FORMAT_VERSION = 1


class ModelError(RuntimeError):
    """A model file that cannot be used; the message says why and what to do."""


def card_path(model_path: Path) -> Path:
    model_path = Path(model_path)
    return model_path.with_name(model_path.name.removesuffix(".joblib") + ".card.json")


class TopicClassifier:
    """``predict(text) -> (label, confidence)``; labels are the training corpus' folder names."""

    def __init__(self, pipeline, card: dict | None = None, train_keys: np.ndarray | None = None):
        self.pipeline = pipeline
        self.card = dict(card or {})
        self.train_keys = train_keys if train_keys is not None else np.zeros(0, dtype=np.uint64)
        self.labels: list[str] = [str(x) for x in pipeline.classes_]
        self.card.setdefault("labels", self.labels)

    # --- prediction ---------------------------------------------------------
    def predict(self, text: str) -> tuple[str, float]:
        return self.predict_many([text])[0]

    def predict_many(self, texts: Sequence[str]) -> list[tuple[str, float]]:
        if not len(texts):
            return []
        probs = self.pipeline.predict_proba(list(texts))
        best = probs.argmax(axis=1)
        return [(self.labels[i], float(probs[row, i])) for row, i in enumerate(best)]

    def proba(self, text: str) -> dict[str, float]:
        probs = self.pipeline.predict_proba([text])[0]
        return {label: float(p) for label, p in zip(self.labels, probs)}

    def relevance(self, text: str, topics: Iterable[str]) -> float:
        """Probability mass on ``topics``: a topic-relevance score for a focused crawl."""
        wanted = set(topics)
        return sum(p for label, p in self.proba(text).items() if label in wanted)

    def seen_in_training(self, text: str) -> bool:
        from .corpus import text_key

        return bool(self.train_keys.size) and bool(np.isin(np.uint64(text_key(text)), self.train_keys))

    # --- persistence --------------------------------------------------------
    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        import joblib

        payload = {"format": FORMAT, "format_version": FORMAT_VERSION, "pipeline": self.pipeline,
                   "card": self.card, "train_keys": self.train_keys}
        tmp = path.with_name(path.name + ".part")
        joblib.dump(payload, tmp, compress=("xz", 6))
        tmp.replace(path)
        card_path(path).write_text(json.dumps(self.card, ensure_ascii=False, indent=2) + "\n",
                                   encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> "TopicClassifier":
        path = Path(path)
        if not path.is_file():
            raise ModelError(f"no model file at {path}; train one with `python main.py train`")
        import joblib

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                payload = joblib.load(path)
            except (ImportError, AttributeError) as exc:
                raise ModelError(f"{path} was made by an incompatible version of XNews or scikit-learn "
                                 f"and cannot be loaded here ({exc}); retrain it with "
                                 "`python main.py train`") from None
            except Exception as exc:  # noqa: BLE001 - pickle, zlib, lzma, EOF... all mean "damaged"
                raise ModelError(f"{path} is not a readable model file (damaged or not a model): "
                                 f"{exc.__class__.__name__}: {exc}") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ModelError(f"{path} is not an XNews topic model")
        version = payload.get("format_version")
        if version != FORMAT_VERSION:
            raise ModelError(f"{path} uses model format {version}, this XNews reads format "
                             f"{FORMAT_VERSION}; retrain it with `python main.py train`")
        pipeline = payload.get("pipeline")
        if pipeline is None or not hasattr(pipeline, "predict_proba") or not hasattr(pipeline, "classes_"):
            raise ModelError(f"{path} holds no usable classifier; retrain it")
        model = cls(pipeline, payload.get("card"), payload.get("train_keys"))
        try:
            model.predict_many(["kiểm tra"])
        except Exception as exc:  # noqa: BLE001 - any failure here means the model is unusable
            versions = model.card.get("versions", {})
            raise ModelError(f"{path} loads but cannot classify with this scikit-learn "
                             f"(made with {versions.get('scikit-learn', 'an unknown version')}): {exc}; "
                             "retrain it with `python main.py train`") from None
        mismatched = [str(w.message) for w in caught if "version" in str(w.message).lower()]
        if mismatched:
            model.card["load_warning"] = mismatched[0]
        return model
