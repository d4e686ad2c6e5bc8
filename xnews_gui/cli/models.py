"""`models list|use|remove` and `reclassify`: which topic model is in use, and the stored labels.

    python main.py models list            every model kept (the shipped one first), * = in use
    python main.py models use 3           crawls (and `reclassify`) use model 3 from now on
    python main.py models remove 2        delete model 2 (not the one in use, not the shipped one)
    python main.py reclassify [--profile P]   re-label the stored articles with the model in use
"""

from __future__ import annotations

import signal
import sys
import threading
from datetime import datetime

from ..classify.compare import describe
from ..services.model_registry import Registry, RegistryError
from .common import CliError


def register(sub) -> None:
    x = sub.add_parser("models", help="the topic models kept in the data folder: list, use, remove")
    msub = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    y = msub.add_parser("list", help="every model kept, with its held-out scores; * marks the one in use")
    y.set_defaults(func=cmd_list, needs_db=False)
    y = msub.add_parser("use", help="make a model (an id from `models list`, or 'shipped') the one in use")
    y.add_argument("id", metavar="ID")
    y.set_defaults(func=cmd_use, needs_db=False)
    y = msub.add_parser("remove", help="delete a model you trained (not the one in use)")
    y.add_argument("id", metavar="ID")
    y.set_defaults(func=cmd_remove, needs_db=False)

    x = sub.add_parser("reclassify", help="re-label the stored articles with the model in use (your corrections stay)")
    x.add_argument("--profile", help="only this profile's articles")
    x.set_defaults(func=cmd_reclassify, needs_db=True)


def _local(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return stamp or "-"


def cmd_list(args) -> int:
    registry = Registry(args.data_dir)
    active = registry.active_id()
    print(f"  {'ID':<8} {'TRAINED':<16}  {'ACCURACY':>8}  TRAINING DATA")
    for v in registry.versions():
        ts = v.card.get("training_set") or {}
        accuracy = f"{v.accuracy:.4f}" if v.accuracy is not None else "-"
        docs = f"{ts['train_docs']:,}" if isinstance(ts.get("train_docs"), int) else "?"
        data = f"{docs} documents ({ts.get('source') or 'unknown'})" if ts else "(no card)"
        print(f"{'*' if v.id == active else ' '} {v.id:<8} {_local(v.created):<16}  {accuracy:>8}  {data}")
        if v.card.get("comparison"):
            print(f"  {'':<8} compared with {_name(v.card['comparison'].get('in_use'))} at training: "
                  + describe(v.card["comparison"], v.name, _name(v.card["comparison"].get("in_use"))))
    floor = registry.floor()
    print(f"in use: {registry.get(active).name}"
          + (f"; confidence floor {floor:.2f} (set by you)" if floor is not None else ""))
    if registry.labels_from() != active:
        print(f"stored articles may carry labels of {_name(registry.labels_from())} (the last re-classification "
              "of the whole store): `reclassify` re-labels them with the model in use")
    return 0


def _name(version_id) -> str:
    return "the shipped model" if version_id in (None, "shipped") else f"model {version_id}"


def cmd_use(args) -> int:
    registry = Registry(args.data_dir)
    try:
        version = registry.use(args.id)
    except RegistryError as exc:
        raise CliError(str(exc)) from None
    print(f"{version.name} is in use: crawls from now on label articles with it; "
          "stored articles keep their labels until `reclassify`")
    return 0


def cmd_remove(args) -> int:
    registry = Registry(args.data_dir)
    try:
        registry.remove(args.id)
    except RegistryError as exc:
        raise CliError(str(exc)) from None
    print(f"model {args.id} removed")
    return 0


def cmd_reclassify(args) -> int:
    from ..classify import ModelError
    from ..services.reclassify import reclassify

    registry = Registry(args.data_dir)
    if args.profile and args.profile not in args.store.profile_names() and not args.store.count_articles(args.profile):
        raise CliError(f"no articles of a profile named {args.profile!r}")
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set()) \
        if threading.current_thread() is threading.main_thread() else None
    shown = [-1]

    def progress(done: int, total: int) -> None:
        percent = done * 100 // total if total else 100
        if percent // 10 != shown[0] // 10 or done == total:
            shown[0] = percent
            print(f"[{percent:3d}%] {done:,} of {total:,} articles", file=sys.stderr, flush=True)

    try:
        result = reclassify(args.store, registry, profile=args.profile, progress=progress, should_stop=stop.is_set)
    except ModelError as exc:
        raise CliError(str(exc)) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    print(result.summary(registry.get(result.model).name))
    return 130 if result.cancelled else 0
