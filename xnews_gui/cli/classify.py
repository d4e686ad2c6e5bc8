"""CLI for the topic classifier: train, evaluate, classify.

    python main.py train [--corpus DIR] [--from-db] [-o MODEL]
    python main.py evaluate MODEL [--corpus DIR]
    python main.py classify MODEL PATH... [--floor F]   (one line per file: path<TAB>label<TAB>confidence)
    python main.py classify MODEL --article ID [--save] [--floor F]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..classify import ModelError, TopicClassifier, TrainConfig, corpus
from ..classify.training import evaluate, train
from ..core.disk.files import FileRefused
from ..services.training import article_text, training_docs
from .common import floor_argument


def register(subparsers) -> None:
    x = subparsers.add_parser("train", help="train the MaxEnt topic model",
                              description="Train the topic model from a corpus folder <topic>/<file>.txt "
                              "(or one holding Train_Full/Test_Full, folders or .tar.xz) and/or the stored "
                              "articles labelled by the user's corrections or their site section.")
    x.add_argument("--corpus", metavar="DIR", help="corpus folder or archive")
    x.add_argument("--from-db", action=_NeedsDb, nargs=0, default=False,
                   help="add stored articles (user label, else section label)")
    x.add_argument("-o", "--output", metavar="MODEL",
                   help="model file (default: kept as the data folder's next model, not in use until `models use`)")
    x.add_argument("--max-features", type=int, default=TrainConfig.max_features,
                   help="keep the N most frequent terms (0: all; default %(default)s)")
    x.add_argument("--min-df", type=int, default=TrainConfig.min_df, help="ignore terms in fewer documents")
    x.add_argument("--C", type=float, default=TrainConfig.C, help="inverse regularisation strength")
    x.add_argument("--segment", action="store_true", help="pyvi word segmentation (needs pyvi; slower)")
    x.add_argument("--held-out", type=float, default=TrainConfig.held_out,
                   help="share of train kept from a first fit to measure what each confidence floor leaves out "
                        "and how often the rest is right (the card's table; 0: no table, no floor; "
                        "default %(default)s)")
    x.add_argument("--test-fraction", type=float, default=0.2,
                   help="held-out share when the corpus has no separate test split")
    x.add_argument("--limit-per-label", type=int, default=None, help=argparse.SUPPRESS)
    x.add_argument("--cache", metavar="DIR", help="where archives are unpacked (default: <data>/cache/corpora)")
    x.set_defaults(func=cmd_train, needs_db=False)

    x = subparsers.add_parser("evaluate", help="per-class P/R/F1, micro/macro averages, confusion matrix")
    x.add_argument("model", metavar="MODEL")
    x.add_argument("--corpus", metavar="DIR", help="score on this corpus (its test split when it has one); "
                   "without it, print the scores stored in the model card")
    x.add_argument("--cache", metavar="DIR", help="where archives are unpacked")
    x.set_defaults(func=cmd_evaluate, needs_db=False)

    x = subparsers.add_parser("classify", help="label text files or a stored article with a topic")
    x.add_argument("model", metavar="MODEL")
    x.add_argument("paths", metavar="PATH", nargs="*", help="text files, or folders of .txt files")
    x.add_argument("--article", type=int, metavar="ID", action=_NeedsDb, help="a stored article's id")
    x.add_argument("--save", action="store_true", help="with --article: store the label on the article")
    x.add_argument("--floor", type=floor_argument, metavar="F",
                   help="give no topic under this confidence, 0 to 0.99 (default: the model's, from its card; "
                        "`evaluate MODEL` shows what each floor leaves out)")
    x.set_defaults(func=cmd_classify, needs_db=False)


class _NeedsDb(argparse.Action):
    """Store the value and ask the main CLI to open the database."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True if self.nargs == 0 else values)
        namespace.needs_db = True


# --- train ---------------------------------------------------------------------------------
def check_train_options(args) -> None:
    """Refuse impossible settings before any corpus is read (one line each, exit code 2)."""
    from .common import CliError

    if not args.C > 0:
        raise CliError(f"--C must be a number above 0 (got {args.C:g}); smaller means stronger regularisation")
    if not 0 < args.test_fraction < 1:
        raise CliError(f"--test-fraction must lie between 0 and 1, e.g. 0.2 (got {args.test_fraction:g})")
    if not 0 <= args.held_out < 0.5:
        raise CliError(f"--held-out must lie between 0 and 0.5, e.g. 0.1 (got {args.held_out:g})")
    if args.min_df < 1:
        raise CliError(f"--min-df must be at least 1 document (got {args.min_df})")
    if args.max_features < 0:
        raise CliError(f"--max-features must be 0 (keep all terms) or more (got {args.max_features})")
    if args.limit_per_label is not None and args.limit_per_label < 1:
        raise CliError(f"--limit-per-label must be at least 1 (got {args.limit_per_label})")
    if getattr(args, "output", None) and Path(args.output).is_dir():  # said now, not after the training
        raise CliError(f"-o {args.output}: a folder; give the name of the model file to write (e.g. topic.npz)")
    if args.corpus and not Path(args.corpus).exists():
        raise CliError(f"no corpus at {args.corpus}: expected a folder <topic>/<file>.txt or a .tar.xz")


def cmd_train(args) -> int:
    if not args.corpus and not args.from_db:
        print("error: give --corpus DIR and/or --from-db", file=sys.stderr)
        return 2
    check_train_options(args)
    cache = Path(args.cache) if args.cache else Path(args.data_dir) / "cache" / "corpora"
    train_docs: list[corpus.Doc] = []
    test_docs = None
    sources = []
    try:
        if args.corpus:
            train_dir, test_dir = corpus.find_splits(Path(args.corpus), cache)
            train_docs = corpus.load_folder(train_dir, args.limit_per_label)
            if test_dir is not None:
                test_docs = corpus.load_folder(test_dir, args.limit_per_label)
            sources.append(f"corpus {Path(args.corpus).name}")
        if args.from_db:
            stored = training_docs(args.store)
            print(f"{len(stored)} labelled stored articles")
            train_docs.extend(stored)
            sources.append("stored articles (user label, else section label)")
    except corpus.CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = corpus.build(train_docs, test_docs, test_fraction=args.test_fraction, source=" + ".join(sources))
    if len(data.labels) < 2:
        print("error: training needs documents of at least two topics", file=sys.stderr)
        return 2
    config = TrainConfig(max_features=args.max_features or None, min_df=args.min_df, C=args.C,
                         segment=args.segment, held_out=args.held_out)
    d = data.description
    print(f"training on {d['train_docs']} documents, {len(data.labels)} topics "
          f"(removed {d['duplicates_removed_train']} duplicates); testing on {d['test_docs']} "
          f"(removed {d['duplicates_removed_test']} duplicates, {d['test_overlap_removed']} also in train)")
    model, scores = train(data, config, progress=_print_progress, command=_command_line(args))
    if args.output:
        output = model.save(Path(args.output))
        print(f"model saved to {output} ({output.stat().st_size / 1e6:.1f} MB), "
              f"{model.card['features']} features, {model.card['train_seconds']} s")
    else:
        _keep_in_registry(model, data, args, sources)
    if scores is not None:
        print(scores.format())
    return 0


def _keep_in_registry(model, data, args, sources) -> None:
    """A model trained for the data folder joins its models beside the one in use, compared with it
    on the held-out documents neither was trained on; it is used only after `models use`."""
    from ..classify.compare import compare, describe
    from ..services.model_registry import Registry

    registry = Registry(args.data_dir)
    in_use = registry.active()
    held_out = "separate test set" if data.description.get("test_split") == "separate test set" \
        else data.description.get("test_split", "")
    if data.test:
        try:
            current = TopicClassifier.load(in_use.path)
        except ModelError as exc:  # the new model is kept all the same, uncompared
            print(f"warning: not compared with the model in use ({in_use.name}): {exc}", file=sys.stderr)
        else:
            model.card["comparison"] = compare(model, current, in_use.id, data.test,
                                               f"{' + '.join(sources)}: {held_out}")
    version = registry.add(model)
    print(f"saved as model {version.id} ({version.path.stat().st_size / 1e6:.1f} MB), "
          f"{model.card['features']} features, {model.card['train_seconds']} s")
    if model.card.get("comparison"):
        print("compared with the model in use " + describe(model.card["comparison"], f"model {version.id}",
                                                           in_use.name))
    print(f"not in use: {in_use.name} still is; `python main.py models use {version.id}` makes this one the "
          "model crawls use")


def _print_progress(fraction: float, message: str) -> None:
    print(f"[{fraction * 100:3.0f}%] {message}", flush=True)


def _command_line(args) -> str:
    """The train command as typed (reproducibility note for the card), without data-folder paths."""
    parts = ["python", "main.py", "train"]
    if args.corpus:
        parts += ["--corpus", str(args.corpus)]
    if args.from_db:
        parts.append("--from-db")
    if args.output:
        parts += ["-o", str(args.output)]
    for flag, value, default in (("--max-features", args.max_features, TrainConfig.max_features),
                                 ("--min-df", args.min_df, TrainConfig.min_df), ("--C", args.C, TrainConfig.C),
                                 ("--test-fraction", args.test_fraction, 0.2),
                                 ("--held-out", args.held_out, TrainConfig.held_out)):
        if value != default:
            parts += [flag, str(value)]
    if args.segment:
        parts.append("--segment")
    return shlex.join(parts)


# --- evaluate ----------------------------------------------------------------------------------
def _load(path: str) -> TopicClassifier | None:
    try:
        return TopicClassifier.load(Path(path))
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def cmd_evaluate(args) -> int:
    model = _load(args.model)
    if model is None:
        return 2
    if not args.corpus:
        stored = model.card.get("metrics")
        if not stored:
            print("error: the model card has no scores; give --corpus DIR", file=sys.stderr)
            return 2
        from ..classify.metrics import Report

        print(f"scores stored in the model card ({stored.get('on', 'held-out documents')}):")
        print(Report.from_dict(stored).format())
        print(format_floor_table(model))
        return 0
    cache = Path(args.cache) if args.cache else Path(args.data_dir) / "cache" / "corpora"
    try:
        train_dir, test_dir = corpus.find_splits(Path(args.corpus), cache)
        docs = corpus.load_folder(test_dir or train_dir)
    except corpus.CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    docs, dups = corpus.dedup(docs)
    docs, seen = corpus.remove_known(docs, {int(k) for k in model.train_keys})
    if not docs:
        print("error: every document of that corpus was used in training", file=sys.stderr)
        return 2
    print(f"{len(docs)} documents ({dups} duplicates and {seen} documents seen in training removed)")
    print(evaluate(model, docs).format())
    return 0


def format_floor_table(model: TopicClassifier) -> str:
    """The card's coverage-vs-accuracy table of confidence floors, or a line saying it has none."""
    entry = model.card.get("confidence_floor") or {}
    table = entry.get("table")
    if not isinstance(table, list) or not table:
        return f"\nconfidence floor {model.floor:.2f} (the card has no coverage table: retrain to measure one)"
    lines = [f"\nconfidence floors on the {entry.get('on', 'held-out documents')}:",
             "  floor  given a topic  right when given", ]
    for row in table:
        accuracy = "-" if row.get("accuracy") is None else f"{row['accuracy']:.2%}"
        mark = "  <- default" if abs(row["floor"] - model.floor) < 1e-9 else ""
        lines.append(f"  {row['floor']:5.2f}  {row['coverage']:13.2%}  {accuracy:>16}{mark}")
    if not any(abs(row["floor"] - model.floor) < 1e-9 for row in table):
        lines.append(f"  default floor: {model.floor:.2f}")
    return "\n".join(lines)


# --- classify ------------------------------------------------------------------------------------
def _expand(paths: list[str]) -> tuple[list[Path], list[str]]:
    """(files to classify, folders that hold no .txt file)."""
    out, empty = [], []
    for p in map(Path, paths):
        found = sorted(q for q in p.rglob("*.txt") if q.is_file()) if p.is_dir() else [p]
        if not found:
            empty.append(str(p))
        out.extend(found)
    return out, empty


def cmd_classify(args) -> int:
    if not args.paths and args.article is None:
        print("error: give PATH... or --article ID", file=sys.stderr)
        return 2
    model = _load(args.model)
    if model is None:
        return 2
    status = 0
    if args.article is not None:
        article = args.store.get_article(args.article)
        if article is None:
            print(f"error: no article with id {args.article}", file=sys.stderr)
            return 2
        prediction = model.predict(article_text(article), floor=args.floor)
        label, confidence = prediction
        print(f"article:{article.id}\t{_shown(prediction)}")
        if args.save and not args.store.set_category(article.id, label, confidence):
            print(f"article {article.id} keeps the topic you gave it ({article.user_label}); not saved",
                  file=sys.stderr)
    files, empty = _expand(args.paths)
    for folder in empty:
        print(f"error: {folder}: a folder with no .txt file in it", file=sys.stderr)
        status = 1
    batch = 256
    for i in range(0, len(files), batch):
        chunk, texts = [], []
        for path in files[i : i + batch]:
            try:
                texts.append(corpus.read_text(path))
                chunk.append(path)
            except OSError as exc:
                print(f"error: {path}: {exc.strerror or exc}", file=sys.stderr)
                status = 1
            except FileRefused as exc:
                print(f"error: {exc}", file=sys.stderr)
                status = 1
        for path, prediction in zip(chunk, model.predict_many(texts, floor=args.floor)):
            print(f"{path}\t{_shown(prediction)}")
    return status


def _shown(prediction) -> str:
    """label TAB confidence; no topic shows as "-" with the reason in a third column."""
    label, confidence = prediction
    if label is None:
        return f"-\t{confidence:.4f}\t{prediction.reason}"
    return f"{label}\t{confidence:.4f}"
