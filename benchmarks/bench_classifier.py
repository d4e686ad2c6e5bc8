"""VNTC 10 topics: MaxEnt against Naive Bayes and a linear SVM on the same features (a measurement).

    python benchmarks/bench_classifier.py [--data ../shared/data] [--cache DIR]
                                          [--segment-sample N] [--json OUT]

The archives ``vntc/Train_Full.tar.xz`` and ``Test_Full.tar.xz`` are unpacked once into the
user cache folder (or ``--cache``). Duplicates inside each split are removed, and so is every
test document whose text (after whitespace normalisation) also occurs in train: all scores are
on that de-duplicated test set.

Reported: accuracy (= micro-F1) and macro-F1 for MaxEnt (logistic regression, the product's
model, with ``TrainConfig`` defaults), ComplementNB and LinearSVC fitted on the very same
TF-IDF matrix; MaxEnt training time (features + fit), peak memory (process RSS), and
articles/s at prediction end to end (normalisation + features + model, one process).

``--segment-sample N`` (default 3000 per split) compares syllable features with pyvi word
segmentation on N training and N test documents (a stratified sample, same seed), because
segmenting the full corpus takes minutes on one core; skipped when pyvi is absent.

Last run (2 cores, shared; scikit-learn 1.9.1; 33,709 train / 47,001 de-duplicated test documents):
  MaxEnt      accuracy 0.9366  macro-F1 0.9215  trained in 52 s (29 s features + 23 s fit),
              1,264 articles/s predicting, peak RSS 1.4 GB (corpus in memory included)
  LinearSVC   accuracy 0.9348  macro-F1 0.9175  (fit 6 s on the same features)
  ComplementNB accuracy 0.8979 macro-F1 0.8704  (fit 0.2 s)
  pyvi words vs syllables on 3,000/3,000: 0.9057 vs 0.9037 accuracy, 4x slower to predict
  (269 vs 1,074 articles/s): within noise for the cost, so syllables stay the default.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from xnews_gui.classify import corpus, metrics  # noqa: E402
from xnews_gui.classify.training import TrainConfig, build_pipeline  # noqa: E402
from xnews_gui.core.text import text  # noqa: E402
from xnews_gui.core.versions import versions_line  # noqa: E402

DEFAULT_DATA = REPO / ".." / "shared" / "data"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def scores(y_true, y_pred, labels) -> dict:
    r = metrics.report(y_true, y_pred, labels)
    return {"accuracy": round(r.accuracy, 4), "macro_f1": round(r.macro["f1"], 4)}


def compare_models(data: corpus.TrainingSet, config: TrainConfig) -> dict:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    labels = data.labels
    y_train = [d.label for d in data.train]
    y_test = [d.label for d in data.test]
    pipeline = build_pipeline(config)
    vectorizer, maxent = pipeline.named_steps["tfidf"], pipeline.named_steps["maxent"]

    started = time.perf_counter()
    x_train = vectorizer.fit_transform([d.text for d in data.train])
    features_s = time.perf_counter() - started
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t0 = time.perf_counter()
        maxent.fit(x_train, y_train)
        fit_s = time.perf_counter() - t0
    out = {"features": x_train.shape[1], "maxent_feature_seconds": round(features_s, 1),
           "maxent_fit_seconds": round(fit_s, 1), "maxent_train_seconds": round(features_s + fit_s, 1),
           "peak_rss_mb_after_training": round(peak_rss_mb())}
    print(f"MaxEnt trained in {features_s + fit_s:.1f} s ({features_s:.1f} s features, {fit_s:.1f} s fit), "
          f"{x_train.shape[1]} features", flush=True)

    t0 = time.perf_counter()
    x_test = vectorizer.transform([d.text for d in data.test])
    test_features_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    predicted = maxent.predict(x_test)
    out["maxent"] = scores(y_test, predicted, labels)
    out["maxent"]["predict_articles_per_s"] = round(len(data.test) / (test_features_s + time.perf_counter() - t0))
    full_report = metrics.report(y_test, list(predicted), labels)

    others = [("ComplementNB", ComplementNB(alpha=0.3)), ("LinearSVC", LinearSVC(C=0.5))]
    for name, model in others:
        t0 = time.perf_counter()
        model.fit(x_train, y_train)
        fit = time.perf_counter() - t0
        out[name] = scores(y_test, model.predict(x_test), labels)
        out[name]["fit_seconds_on_same_features"] = round(fit, 1)
        print(f"{name}: {out[name]}", flush=True)
    out["peak_rss_mb"] = round(peak_rss_mb())
    print(full_report.format(), flush=True)
    return out


def compare_segmentation(data: corpus.TrainingSet, config: TrainConfig, n: int, seed: int = 7) -> dict:
    if not text.segmenter_available():
        return {"skipped": "pyvi is not installed (pip install pyvi)"}
    rng = random.Random(seed)
    train = rng.sample(data.train, min(n, len(data.train)))
    test = rng.sample(data.test, min(n, len(data.test)))
    labels = data.labels
    out = {"train_docs": len(train), "test_docs": len(test)}
    for segment in (False, True):
        cfg = TrainConfig(**{**config.__dict__, "segment": segment})
        pipeline = build_pipeline(cfg)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipeline.fit([d.text for d in train], [d.label for d in train])
        train_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        predicted = pipeline.predict([d.text for d in test])
        predict_s = time.perf_counter() - t0
        key = "pyvi_words" if segment else "syllables"
        out[key] = scores([d.label for d in test], predicted, labels)
        out[key]["train_seconds"] = round(train_s, 1)
        out[key]["predict_articles_per_s"] = round(len(test) / predict_s)
        print(f"segmentation sample, {key}: {out[key]}", flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=None, help="where to unpack the archives")
    parser.add_argument("--segment-sample", type=int, default=3000)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    print(versions_line(), flush=True)  # what the figures were made with
    root = args.data / "vntc"
    if not root.is_dir():
        print(f"no VNTC at {root}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    train_dir, test_dir = corpus.find_splits(root, args.cache)
    data = corpus.build(corpus.load_folder(train_dir), corpus.load_folder(test_dir), source="VNTC 10 topics")
    print(f"loaded in {time.perf_counter() - t0:.0f} s: {json.dumps(data.description, ensure_ascii=False)}",
          flush=True)
    config = TrainConfig()
    result = {"config": config.__dict__, "training_set": data.description,
              "peak_rss_mb_after_loading": round(peak_rss_mb())}
    result.update(compare_models(data, config))
    if args.segment_sample > 0:
        result["segmentation"] = compare_segmentation(data, config, args.segment_sample)
    print(json.dumps(result, ensure_ascii=False, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
