"""The app's crawl in a process of its own: ``python -m xnews_gui.services.crawl_child``.

The crawl's threads then never hold the app's interpreter lock, so the window stays responsive
while they parse, classify and store at full speed. The child runs at a lower CPU priority: when
the cores are busy the window goes first. Every profile crawls here, one way: a profile marked
"render" is started through ``python -m xnews_gui.ui.crawl_child_render``, which calls ``main`` with a
``runner`` that keeps the render pool (QtWebEngine, offscreen) in this process, where the crawl is.

Protocol (UTF-8 JSON, one object a line). The app writes one request on stdin:
``{"data_dir", "profile" (Profile.to_dict), "options" (options_to_dict), "classifier" ("auto" |
"none"), "skip_hidden_topics", "image_cache_limit"}`` (with ``"cluster": redis URL`` the child follows
that cluster's crawl of the profile instead: ``services.cluster``), then commands: ``pause``, ``resume``,
``stop``; stdin closing (the app went away) stops the crawl too. The child writes the crawl's
events ``{"kind", "data"}`` on stdout, then ``{"kind": "done", "data": summary}`` or
``{"kind": "failed", "data": {"message"}}`` last.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import sys
import threading
import traceback
from pathlib import Path

from ..crawl.fetcher import FetchLimits
from ..crawl.options import CrawlOptions

MODULE = "xnews_gui.services.crawl_child"
CHILD_NICE = 5  # background work: a third of the window's share of a core when both want it


def child_command(module: str = MODULE) -> tuple[str, list[str], dict[str, str]]:
    """(program, arguments, environment additions) that start the child (``module``: its entry point)
    with this checkout's code."""
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    env = {"PYTHONPATH": package_root + (os.pathsep + path if path else ""), "PYTHONUNBUFFERED": "1"}
    return sys.executable, ["-m", module], env


def options_to_dict(options: CrawlOptions) -> dict:
    """CrawlOptions as JSON-able data. Cookies are not sent: the child loads the profile's own."""
    out = {}
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if f.name == "cookies":
            continue
        if f.name == "limits":
            value = dataclasses.asdict(value)
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def options_from_dict(data: dict) -> CrawlOptions:
    known = {f.name for f in dataclasses.fields(CrawlOptions)} - {"cookies"}
    values = {k: v for k, v in data.items() if k in known}
    if "limits" in values:
        values["limits"] = FetchLimits(**values["limits"])
    for key in ("raw_dir", "image_dir"):
        if values.get(key) is not None:
            values[key] = Path(values[key])
    for key in ("topics", "proxies", "revisit_urls"):
        if key in values:
            values[key] = tuple(values[key])
    return CrawlOptions(**values)


def _jsonable(value):
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


MAX_EVENT_TEXT = 4000  # characters of a string in an event: a live row or a log line needs no more


def _short(value, depth: int = 0):
    """``value`` with each string cut to MAX_EVENT_TEXT (a page's 4 MB headline is no line to send)."""
    if isinstance(value, str):
        return value if len(value) <= MAX_EVENT_TEXT else value[:MAX_EVENT_TEXT] + "\u2026"
    if depth < 8 and isinstance(value, dict):
        return {key: _short(item, depth + 1) for key, item in value.items()}
    if depth < 8 and isinstance(value, (list, tuple)):
        return [_short(item, depth + 1) for item in value]
    return value


class Channel:
    """Lines to the app: any thread may write; a broken pipe (the app is gone) stops the crawl."""

    def __init__(self, stream, on_broken):
        self.stream = stream
        self.on_broken = on_broken
        self.lock = threading.Lock()

    def send(self, kind: str, data) -> None:
        line = json.dumps({"kind": kind, "data": _short(data)}, ensure_ascii=False, default=_jsonable) + "\n"
        with self.lock:
            try:
                self.stream.write(line.encode("utf-8"))
                self.stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.on_broken()


class Lines:
    """Lines from a pipe, read unbuffered: a thread blocked here cannot stop the interpreter from
    exiting (a buffered stdin's lock held by a blocked daemon thread aborts Python's shutdown)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.pending = b""

    def readline(self) -> bytes:
        while b"\n" not in self.pending:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                line, self.pending = self.pending, b""
                return line
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line + b"\n"

    def __iter__(self):
        while line := self.readline():
            yield line


def _listen(stream: Lines, handle) -> None:
    """Commands from the app until stdin closes (then the crawl stops)."""
    for raw in stream:
        command = raw.decode("utf-8", "replace").strip()
        if command == "pause":
            handle.pause()
        elif command == "resume":
            handle.resume()
        elif command == "stop":
            break
    handle.stop()


def _lower_priority() -> None:
    try:
        os.nice(CHILD_NICE)
    except (AttributeError, OSError):  # not on this platform, or refused: run at the app's priority
        pass


def main(runner=None) -> int:
    """The child's work; ``runner(make_handle)`` -> summary runs the crawl where it needs to (a render
    pool's event loop: ``ui.crawl_child_render``); ``make_handle(renderer=None)`` sets the crawl up."""
    from ..core.profile.profile import Profile
    from ..store import Store
    from .crawl import AUTO, start_crawl

    gc.freeze()  # what is loaded by now lives as long as the process: full collections need not walk it
    stdin, stdout = Lines(sys.stdin.fileno()), sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the event stream
    _lower_priority()
    channel = Channel(stdout, lambda: None)
    try:
        request = json.loads(stdin.readline() or "null")
        if not isinstance(request, dict):
            raise ValueError("no crawl request on stdin")
        profile = Profile.from_dict(request["profile"])
        options = options_from_dict(request.get("options") or {})
        store = Store.open(request["data_dir"])
    except Exception as exc:  # a bad request: say why, in one line
        channel.send("failed", {"message": f"{type(exc).__name__}: {exc}"})
        return 2

    def make_handle(renderer=None):
        if request.get("cluster"):
            from .cluster import ClusterFollower

            handle = ClusterFollower(profile.name, str(request["cluster"]), store,
                                     lambda ev: channel.send(ev.kind, ev.data))
        else:
            handle = start_crawl(profile, store, options,
                                 lambda ev: channel.send(ev.kind, ev.data),
                                 classifier=AUTO if request.get("classifier", "auto") == "auto" else None,
                                 skip_hidden_topics=bool(request.get("skip_hidden_topics")),
                                 image_cache_limit=int(request.get("image_cache_limit") or 0), renderer=renderer)
        threading.Thread(target=_listen, args=(stdin, handle), name="xnews-crawl-commands", daemon=True).start()
        channel.on_broken = handle.stop  # the app is gone: nobody reads the events any more
        channel.send("state", "running")
        return handle

    try:
        summary = make_handle().run() if runner is None else runner(make_handle)
        if summary is None:
            raise RuntimeError("the crawl ended without a summary")
        channel.send("done", summary)
        return 0
    except Exception as exc:
        traceback.print_exc()  # to the app's stderr
        channel.send("failed", {"message": f"{type(exc).__name__}: {exc}"})
        return 1
    finally:
        store.close()


if __name__ == "__main__":
    from .exit_now import exit_now

    code = main()
    exit_now(code)  # everything is sent, written and closed: no tear-down of the crawl's objects
    sys.exit(code)

