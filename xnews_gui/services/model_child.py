"""The app's model jobs in a process of their own: ``python -m xnews_gui.services.model_child``.

Training a model (seconds to minutes of NumPy and scikit-learn) and re-labelling the store run
here, as the app's crawls do (``crawl_child``): the window's interpreter stays free, so the
reader opens articles as fast as when nothing runs. The process runs at a lower CPU priority
with one BLAS thread (the app sets ``OMP_NUM_THREADS`` and the like), leaving a core to the window.

Protocol (UTF-8 JSON, one object a line). The app writes one request on stdin:
``{"job": "train", "data_dir", "corpus_dir", "cache_dir", "stored_articles"}`` or
``{"job": "reclassify", "data_dir", "profile"}``. The child writes ``{"kind", "data"}`` lines:
``progress`` ``{"fraction", "message"}``; for ``train``, ``review`` (the corrections that
contradict the model in use, a list) and waits for ``train {"exclude": [ids]}``; then ``ready``
(the candidate: its comparison with the model in use and what it would change in the store) and
waits for ``commit``: nothing is written before it. Last comes ``done`` (data: the new version /
the re-classification's result), ``cancelled`` or ``failed`` ``{"message"}``. ``cancel`` (or
stdin closing) stops the job at its next step; the app may also end the process at any time
before it sent ``commit``: no model file is written then.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import traceback
from pathlib import Path

from .crawl_child import CHILD_NICE, Channel, Lines

MODULE = "xnews_gui.services.model_child"
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}


class Stop(Exception):
    """The app asked to cancel, or went away."""


class Commands:
    """Lines from the app, read by a thread: ``cancel`` sets ``stopped``; others wait in a queue."""

    def __init__(self, stream: Lines):
        self.stopped = threading.Event()
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), name="xnews-model-commands", daemon=True).start()

    def _read(self, stream: Lines) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").strip()
            if line == "cancel":
                break
            self._lines.put(line)
        self.stopped.set()  # cancel, or stdin closed: the app is gone
        self._lines.put("cancel")

    def check(self) -> None:
        if self.stopped.is_set():
            raise Stop()

    def wait_for(self, word: str) -> str:
        """The argument of the next ``word ...`` line; Stop on cancel."""
        while True:
            line = self._lines.get()
            self.check()
            name, _, rest = line.partition(" ")
            if name == word:
                return rest


def _lower_priority() -> None:
    try:
        import os

        os.nice(CHILD_NICE)
    except (AttributeError, OSError):
        pass


def train_job(request: dict, channel: Channel, commands: Commands) -> dict:
    from .model_registry import Registry
    from ..classify.retrain import Cancelled, retrain
    from ..store import Store
    from .training import corrections_to_review, label_changes, training_docs

    def progress(fraction, message):
        commands.check()
        channel.send("progress", {"fraction": fraction, "message": message})

    root = Path(request["data_dir"])
    registry = Registry(root)
    in_use_id = registry.active_id()
    progress(0.0, f"loading {registry.get(in_use_id).name} (in use)")
    in_use = registry.load_active()
    store = Store.open(root)
    try:
        exclude: list[int] = []
        docs = []
        if request.get("stored_articles", True):
            progress(0.0, "reading your corrections")
            review = corrections_to_review(store, in_use)
            if review:
                channel.send("review", review)
                answer = json.loads(commands.wait_for("train") or "{}")
                exclude = [int(i) for i in answer.get("exclude", [])]
            progress(0.005, "reading the stored articles")
            docs = training_docs(store, exclude)
        corpus_dir = Path(request["corpus_dir"]) if request.get("corpus_dir") else None
        cache = Path(request["cache_dir"]) if request.get("cache_dir") else root / "cache" / "corpora"
        try:
            candidate = retrain(in_use, in_use_id, corpus_dir=corpus_dir, extra_docs=docs, cache_dir=cache,
                                progress=progress, should_stop=commands.stopped.is_set)
        except Cancelled:
            raise Stop() from None
        progress(0.93, "what it would change in the stored articles")
        changes = label_changes(store, candidate.model, in_use, should_stop=commands.stopped.is_set)
        commands.check()
        candidate.model.card["store_changes"] = changes
        card = candidate.model.card
        channel.send("ready", {"comparison": candidate.comparison, "store_changes": changes,
                               "metrics": card.get("metrics"), "training_set": card.get("training_set"),
                               "corrections_left_out": exclude})
        commands.wait_for("commit")
        version = registry.add(candidate.model)  # written only now, after the app said so
        return {"version": version.id, "in_use": in_use_id, "comparison": candidate.comparison,
                "store_changes": changes}
    finally:
        store.close()


def reclassify_job(request: dict, channel: Channel, commands: Commands) -> dict:
    from .model_registry import Registry
    from ..store import Store
    from .reclassify import reclassify

    root = Path(request["data_dir"])
    registry = Registry(root)
    channel.send("progress", {"fraction": 0.0, "message": f"loading {registry.active().name}"})
    store = Store.open(root)
    try:
        def progress(done: int, total: int) -> None:
            channel.send("progress", {"fraction": done / total if total else 1.0,
                                      "message": f"{done:,} of {total:,} articles", "done": done, "total": total})

        result = reclassify(store, registry, profile=request.get("profile") or None, progress=progress,
                            should_stop=commands.stopped.is_set)
        return result.to_dict()
    finally:
        store.close()


JOBS = {"train": train_job, "reclassify": reclassify_job}


def main() -> int:
    stdin, stdout = Lines(sys.stdin.fileno()), sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the event stream
    _lower_priority()
    channel = Channel(stdout, lambda: None)
    try:
        request = json.loads(stdin.readline() or "null")
        job = JOBS[request["job"]]
    except Exception as exc:  # noqa: BLE001 - a bad request: say why, in one line
        channel.send("failed", {"message": f"no model job in the request ({type(exc).__name__}: {exc})"})
        return 2
    commands = Commands(stdin)
    try:
        result = job(request, channel, commands)
    except Stop:
        channel.send("cancelled", {})
        return 0
    except Exception as exc:  # noqa: BLE001 - told to the app in one line; the traceback to its log
        traceback.print_exc()
        channel.send("failed", {"message": f"{type(exc).__name__}: {exc}"})
        return 1
    channel.send("done", result)
    return 0


def child_command() -> tuple[str, list[str], dict[str, str]]:
    """(program, arguments, environment additions) that start the child with this checkout's code."""
    from .crawl_child import child_command as crawl_command

    program, _, env = crawl_command()
    return program, ["-m", MODULE], {**env, **ONE_THREAD}


if __name__ == "__main__":
    from .exit_now import exit_now

    code = main()
    exit_now(code)
    sys.exit(code)
