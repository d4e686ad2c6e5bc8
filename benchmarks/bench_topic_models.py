"""Two topic models side by side on VNTC, every article given its best topic (a measurement).

    python benchmarks/bench_topic_models.py [--model NEW.npz] [--anchor OLD.npz ...] [--data ../shared/data]
                                            [--cache DIR] [--json OUT]

``--model`` defaults to this checkout's bundled model, ``--anchor`` to none (e.g. the previous bundled
model: ``git show main:resources/model/topic.npz > old.npz``). For each model, in one process:

* accuracy, macro-F1 and every class's recall on the full VNTC test set de-duplicated against train
  (duplicates inside the test set and every test text also in train removed, as ``train`` does),
  and on the test set as given (the published protocol: 50,373 documents);
* the confusions that cost most (true -> predicted, on the de-duplicated set);
* the file's size, the training time its card records, and ``predict_many`` throughput in batches of
  64 (the crawl pipeline's batch) over the test articles, CPU time of this process, one thread.

Neither model is tuned on these figures: the model's settings were chosen on a held-out part of train.
The library versions are printed with the table.

Last run (2 cores shared, Python 3.11.7, NumPy 2.4.6, scikit-learn 1.9.1 for training; new = the bundled
model retrained with the floor table, anchor = the model bundled before, same features):

                                       new      anchor
  accuracy, de-duplicated test      93.58%      93.58%   (47,001 articles)
  accuracy, original split          93.36%      93.37%   (50,373 articles)
  macro-F1, de-duplicated           0.9200      0.9201
  lowest class recall (Doi song)     0.703       0.694   (Doi song -> Van hoa: 223 / 222)
  predict_many, articles/s CPU       3,821       3,884   (batches of 64, VNTC articles)
  model file                        2.8 MB      2.8 MB
  training (card; new: two fits)     115 s        38 s   (`train` wall clock 175 s with reading and scoring)

What was tried on a held-out 20% of VNTC's train (6,741 documents, fitted on the other 26,968; TF-IDF
sublinear, l2, class_weight balanced unless said), accuracy with every article given its best topic:

  syllable uni+bigrams, 60,000 features, C 20 (the shipped settings)      92.83%
  ... class_weight None                                                    92.89%
  all 501,276 uni+bigrams seen twice, C 20 / C 50                          92.70% / 92.97%
  uni+bi+trigrams, 1,522,564 features, C 20                                92.55%
  NB-weighted features (NBSVM, Wang & Manning 2012), one-vs-rest, C 0.1    92.18% (with trigrams 92.20%)
  NB-LR (log-count ratio x binary features, liblinear), C 1                92.39%
  multinomial NB, uni / +bi / +trigrams (a per-class n-gram model)         87.3% / 90.1% / 90.5%
  MaxEnt (all uni+bigrams, C 50) + that n-gram model, log-linear mix       92.85% .. 90.83% (weight 0.02 .. 0.5)
  + the first phrase's (headline's) terms as terms of their own, 60k       92.94%; IDF x2: 93.06%; C 50: 93.10%

The last (the best on held-out, +0.27) scored 93.41% de-duplicated / 93.20% as given on the test set, below
the shipped settings (93.58% / 93.36%): within the held-out's noise (~18 documents), and not kept. The held-out
part of train and the test set differ: train is 58% vnexpress, test 80%; "Doi song" is confused with
"Van hoa" 8 times in 631 held-out documents, 223 times in 1,877 test ones. The MaxEnt probabilities are
calibrated already (all uni+bigrams, C 50: expected calibration error 0.010 on held-out; no temperature
from 0.6 to 1.5 lowers it).

Tried later on held-out 20% of train (same protocol; the MaxEnt of the shipped settings at 92.74-92.81% on
each split):

  per-class syllable trigram language model, interpolated absolute discounting
    (D 0.8 / 0.7, add-one unigrams: the family of the published 97.1%)                  90.72%
  MaxEnt (92.74% on that split) + that model, log-linear mix, weight per token 0.5 / 1 / 50  92.96 / 92.99 / 91.27%
  held out by time: the newest 20% of each topic and source (file numbers follow
    the dates, 2004 -> 2005), shipped settings                                           92.65% (random 92.81%)

Tried since, the same protocol (held-out 20% of train, seed 13; syllable uni+bigrams 60k, C 20: 92.91% there):

  pyvi word segmentation (the `segment` extra), word uni+bigrams, 60k / 200k features      92.94% / 93.03%
  syllables 60k + pyvi words 60k side by side, C 20 / C 10                                93.09% / 93.07%
  character 3-5-grams within words (char_wb, hashed to 2^19, TF-IDF) alone                 92.55%
  syllables + those character n-grams, weight 0.5 / 1                                      93.24% / 93.37%

The last (+0.46 on held-out, the largest gain of any idea here) was scored once on the test set, fitted on all of
train beside the shipped features in one run: 93.32% de-duplicated / 93.11% as given, macro-F1 0.916, against
93.64% / 93.41% / 0.921 for the syllables alone. It does not carry over, as the headline terms did not: not kept.

and, a method with nothing to tune, on the test set as given (the model fitted on all of train, 93.35% there):
class priors adapted to the test set by EM (Saerens et al. 2002) 91.85%; even the test set's true topic mix
92.62%. The shift is not in the topics' shares.

Why the test set stays near 93.5% (looked at, not tuned on): the test set's "Doi song" holds a kind of story
train files elsewhere (below). The corpus also files the same text under two topics (the "labels of the same
text" line this benchmark prints: 2,531 test texts are also in train, 117 of them, 4.6%, under another topic;
a bound on the split as given only, since the de-duplicated set leaves those texts out; it hints at how
often two of the corpus' editors disagree). Of its errors towards "Van hoa",
most are vnexpress celebrity life stories ("Nicole Kidman tim cach tang can"); train's "Doi song" from
vnexpress is advice columns, food and homes, and train files celebrity stories under "Van hoa". No feature
of the text can learn that filing from train; a user's own corrections can (``retrain``).

How far this model family can go on the test set at all (``bench_topic_ceiling.py``, a diagnostic): with
half of the de-duplicated test set's own labelled articles added to train, the shipped settings score
93.89% on the other half (train alone: 93.70% on one half; that half alone: 93.01%). In-domain labels buy
0.2 points: the 95.5% bound is not within reach of features learnt from this corpus. Published
reproductions on the original split sit below the bundled model (undertheseanlp's Sen-1, TF-IDF +
LinearSVC: 92.49%; sonar_core_1, TF-IDF + SVC: 92.80%; bundled: 93.36%); none reproduces the 97.1% of
Vu et al. 2007.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from xnews_gui.classify import TopicClassifier, corpus, metrics  # noqa: E402
from xnews_gui.core.versions import versions_line  # noqa: E402

DEFAULT_DATA = REPO / ".." / "shared" / "data"


def best_labels(model: TopicClassifier, docs, batch: int = 64) -> tuple[list[str], float]:
    """Every document's best topic (no guard, no floor) and the CPU seconds it took."""
    labels, cpu = [], time.process_time()
    for i in range(0, len(docs), batch):
        labels += [p.label for p in model.predict_many([d.text for d in docs[i:i + batch]], guard=False)]
    return labels, time.process_time() - cpu


def label_agreement(train_docs, test_docs) -> dict:
    """How often the corpus files the very same text under two topics: a bound no model can pass on those
    texts (one of the two labels is "wrong" whatever the model says)."""
    topics_in_train, topics_in_test = defaultdict(set), defaultdict(set)
    for d in train_docs:
        topics_in_train[corpus.text_key(d.text)].add(d.label)
    both = other = 0
    for d in test_docs:
        key = corpus.text_key(d.text)
        topics_in_test[key].add(d.label)
        if key in topics_in_train:
            both += 1
            other += d.label not in topics_in_train[key]
    return {"test_texts_in_train": both, "filed_otherwise": other,
            "test_texts_with_two_topics": sum(len(t) > 1 for t in topics_in_test.values())}


def scores(truth, predicted, labels) -> dict:
    r = metrics.report(truth, predicted, labels)
    worst = sorted(((int(r.matrix[i, j]), labels[i], labels[j]) for i in range(len(labels))
                    for j in range(len(labels)) if i != j), reverse=True)[:5]
    return {"documents": r.total, "accuracy": round(r.accuracy, 4), "macro_f1": round(r.macro["f1"], 4),
            "recall": {c.label: round(c.recall, 4) for c in r.per_class},
            "min_recall": round(min(c.recall for c in r.per_class), 4),
            "top_confusions": [f"{a} -> {b}: {n}" for n, a, b in worst]}


def measure(path: Path, dedup, original) -> dict:
    cpu = time.process_time()
    model = TopicClassifier.load(path)
    load_ms = (time.process_time() - cpu) * 1000
    labels = model.labels
    predicted, seconds = best_labels(model, dedup)
    out = {"file": str(path), "megabytes": round(path.stat().st_size / 1e6, 2), "load_ms_cpu": round(load_ms),
           "model": model.card.get("model"), "features": model.card.get("features"),
           "train_seconds": model.card.get("train_seconds"), "versions": model.card.get("versions"),
           "deduplicated": scores([d.label for d in dedup], predicted, labels),
           "articles_per_s_cpu": round(len(dedup) / seconds)}
    predicted, _ = best_labels(model, original)
    out["original_split"] = scores([d.label for d in original], predicted, labels)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=REPO / "resources" / "model" / "topic.npz")
    parser.add_argument("--anchor", type=Path, action="append", default=[],
                        help="a model to compare with (e.g. the previous bundled one); may be repeated")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, help="where to unpack the archives")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    print(versions_line(), flush=True)  # what the figures were made with
    root = args.data / "vntc"
    if not root.is_dir():
        print(f"no VNTC at {root}", file=sys.stderr)
        return 2
    train_dir, test_dir = corpus.find_splits(root, args.cache)
    train_docs, test_docs = corpus.load_folder(train_dir), corpus.load_folder(test_dir)
    data = corpus.build(train_docs, test_docs, source="VNTC 10 topics")
    print(f"VNTC: {len(data.train)} train documents, {len(data.test)} test documents de-duplicated against "
          f"train, {len(data.original_test)} as given", flush=True)
    agreement = label_agreement(train_docs, test_docs)
    print(f"labels of the same text: {agreement['test_texts_in_train']:,} test texts are also in train, "
          f"{agreement['filed_otherwise']:,} of them under another topic; {agreement['test_texts_with_two_topics']:,} "
          f"texts are in the test set more than once under different topics", flush=True)
    import sklearn

    result = {"versions": {"python": platform.python_version(), "numpy": np.__version__,
                           "scikit-learn (training only)": sklearn.__version__},
              "training_set": data.description, "label_agreement": agreement}
    runs = [("new", args.model)] + [(f"anchor{i or ''}", path) for i, path in enumerate(args.anchor)]
    for name, path in runs:
        result[name] = measure(path, data.test, data.original_test)
        print(f"[{name}] {json.dumps(result[name], ensure_ascii=False)}", flush=True)
    print(table(result, [name for name, _ in runs]))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


def table(result: dict, names: list[str]) -> str:
    rows = [("accuracy, de-duplicated test", lambda r: f"{r['deduplicated']['accuracy']:.2%}"),
            ("accuracy, original split", lambda r: f"{r['original_split']['accuracy']:.2%}"),
            ("macro-F1, de-duplicated", lambda r: f"{r['deduplicated']['macro_f1']:.4f}"),
            ("macro-F1, original split", lambda r: f"{r['original_split']['macro_f1']:.4f}"),
            ("lowest class recall (de-dup.)", lambda r: f"{r['deduplicated']['min_recall']:.3f}"),
            ("predict_many, articles/s CPU", lambda r: f"{r['articles_per_s_cpu']:,}"),
            ("model file, MB", lambda r: f"{r['megabytes']:.1f}"),
            ("training, s (card)", lambda r: f"{r['train_seconds']}")]
    lines = [f"{'':32s}" + "".join(f"{n:>14s}" for n in names)]
    lines += [f"{title:32s}" + "".join(f"{fmt(result[n]):>14s}" for n in names) for title, fmt in rows]
    labels = list(result[names[0]]["deduplicated"]["recall"])
    lines.append("recall per class (de-duplicated test):")
    lines += [f"  {label:30s}" + "".join(f"{result[n]['deduplicated']['recall'][label]:14.3f}" for n in names)
              for label in labels]
    for n in names:
        lines.append(f"[{n}] top confusions: " + "; ".join(result[n]["deduplicated"]["top_confusions"]))
    lines.append("versions: " + json.dumps(result["versions"]))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
