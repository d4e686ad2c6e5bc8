"""One crawl set-up for the command line and the app: classifier, sink, run record.

    handle = start_crawl(profile, store, options, on_event)   # any thread but the GUI's
    summary = handle.run()                                    # blocks; stop() from anywhere

``start_crawl`` loads the topic model (unless given one), asks the store for the
topics to skip, records the run as ``running`` and builds the engine. ``run`` crawls
and records how the run ended (finished, stopped, failed, refused), whatever happens.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable

from ..core.profile.profile import Profile
from ..crawl.cookies import CookieError, CookieFile, cookies_path
from ..crawl.engine import CrawlEvent, CrawlOptions, Crawler
from ..crawl.periodic import PeriodicCrawler
from ..crawl.proxies import ProxyConfig, ProxyError, mask
from ..crawl.state import CrawlBusy
from .model_registry import Registry
from ..paths import models_dir
from ..store import Store
from ..store.sink import StoreSink
from .watches import END_WAIT_S, WatchOutlet

AUTO = "auto"  # classifier=AUTO: the data folder's topic model, when one loads


class ClassifierLoader:
    """The data folder's topic model in use (services/model_registry.py), loaded once (again when the user
    chooses another model or floor); thread-safe.
    Raises when the model is unusable (the app reports it; ``start_crawl`` then crawls without)."""

    def __init__(self, root: Path, floor: float | None = None):
        self.root = Path(root)
        self.floor = floor  # the confidence floor to classify with; None: the user's choice, else the model's
        self._lock = threading.Lock()
        self._model = None
        self._key: tuple | None = None

    def __call__(self):
        registry = Registry(self.root)
        path, floor = registry.active_path(), registry.floor()
        if self.floor is not None:  # given for this crawl (`crawl --topic-floor`)
            floor = self.floor
        if not path.exists():
            return None
        key = (path, path.stat().st_mtime_ns, floor)  # another model chosen, or another floor: reload
        with self._lock:
            if self._model is None or self._key != key:
                from ..classify import TopicClassifier

                model = TopicClassifier.load(path)
                if floor is not None:
                    model.floor = floor
                self._model, self._key = model, key
            return self._model


def state_dir(store: Store) -> Path:
    """Where crawls keep their frontier and seen URLs (one file per profile)."""
    return store.root / "crawl"


def revisit_outlook(store: Store, profile: Profile, now: float | None = None) -> dict | None:
    """When the profile's next article revisit is due: {"next_at": epoch seconds or None, "due": articles
    due now, "watched": articles watched}, None before its first crawl. Read while a crawl runs too."""
    import time

    from ..crawl.state import revisit_outlook as outlook

    now = time.time() if now is None else now
    return outlook(state_dir(store) / f"{profile.name}.sqlite3", now - profile.crawl.watch_days * 86400, now)


def forget_state(store: Store, profile_name: str) -> None:
    """Drop a profile's saved frontier and seen URLs (a fresh crawl)."""
    for path in state_dir(store).glob(f"{profile_name}.sqlite3*"):
        path.unlink()


class CrawlHandle:
    """One started crawl (or periodic re-crawl): run it, stop, pause, resume."""

    def __init__(self, store: Store, sink: StoreSink, runner, periodic: bool, outlet: WatchOutlet | None = None):
        self.store = store
        self.sink = sink
        self.outlet = outlet  # the watches' feeds and webhooks, closed when the crawl ends
        self.runner = runner  # a Crawler, or a PeriodicCrawler
        self.periodic = periodic
        self.summary: dict | None = None

    @property
    def run_id(self) -> int | None:
        return self.sink.run_id

    @property
    def stats(self) -> dict:
        return dict(getattr(self.runner, "stats", {}) or {})

    def run(self) -> dict:
        """Crawl until done or stopped; the run record says how it ended. Raises CrawlBusy when the
        profile is already being crawled (the record says 'refused')."""
        if self.outlet is not None:
            self.outlet.start()
        if self.periodic:
            try:
                passes = self.runner.run_forever()
            finally:
                self._close_outlet()
            self.summary = dict(passes[-1]) if passes else {"status": "stopped"}
            return self.outlet.add_to(self.summary) if self.outlet is not None else self.summary
        summary = None
        try:
            summary = self.runner.run()
        except CrawlBusy as exc:
            summary = {"status": "refused", "refused_reason": str(exc)}
            raise
        except BaseException:
            summary = dict(self.stats, status="failed")
            raise
        finally:
            self.summary = summary
            self.sink.finish_run(summary)
            self._close_outlet()
        return self.outlet.add_to(summary) if self.outlet is not None else summary

    def _close_outlet(self) -> None:
        if self.outlet is not None:
            self.outlet.close(END_WAIT_S)

    def stop(self) -> None:
        self.runner.stop()

    def pause(self) -> None:
        self.runner.pause()

    def resume(self) -> None:
        self.runner.resume()


def start_crawl(profile: Profile, store: Store, options: CrawlOptions | None = None,
                on_event: Callable[[CrawlEvent], None] | None = None, *, classifier=AUTO,
                skip_hidden_topics: bool = False, image_cache_limit: int = 0,
                periodic: bool = False, log: Callable[[str], None] | None = None, renderer=None,
                topic_floor: float | None = None) -> CrawlHandle:
    """Set a crawl up (see the module's note). ``classifier``: AUTO, a model, a loader
    (the crawl calls it in a thread of its own while it starts) or None. ``log`` gets the set-up's messages
    (default: ``on_event`` log events). A periodic crawl records no run of its own. ``renderer``: a render
    pool (``ui.render_pool.RenderPool``) for profiles marked "render". ``topic_floor``: with AUTO, the
    confidence under which an article gets no topic (None: the floor the user chose, else the model's own)."""
    options = options or CrawlOptions()
    if log is None:
        def log(message: str) -> None:
            if on_event is not None:
                on_event(CrawlEvent("log", {"message": message}))

    if options.cookies is None:
        try:
            jar = CookieFile.load(cookies_path(store.root, profile.name))
        except (CookieError, OSError) as exc:
            log(f"the profile's cookies cannot be read ({exc}): crawling without them")
        else:
            if len(jar):
                options = replace(options, cookies=jar)
                log(f"sending the profile's cookies: {jar.summary()}")
    if not options.proxies:
        try:
            urls, where = ProxyConfig.load(store.root).for_profile(profile.name)
        except (ProxyError, OSError) as exc:
            raise ProxyError(f"the proxies cannot be read ({exc}): fix or delete the file, or clear them "
                             "(xnews proxies clear)") from None
        if urls:
            options = replace(options, proxies=tuple(urls))
            log(f"crawling through {len(urls)} prox{'ies' if len(urls) > 1 else 'y'} "
                f"({'the profile' + chr(39) + 's own' if where == 'profile' else 'set for all crawls'}): "
                + ", ".join(mask(u) for u in urls))
    if renderer is not None and options.proxies:
        renderer.use_proxy(options.proxies[0])  # set before its first page (the engine rotates from there)
    if renderer is not None and options.cookies is not None:
        renderer.use_cookies(options.cookies)  # rendered pages are fetched logged in too
    if options.fetch_images and image_cache_limit and store.image_cache_bytes() >= image_cache_limit:
        options = replace(options, fetch_images=False)
        log("the image cache is full (see Settings): images are not fetched")
    if classifier == AUTO:
        legacy = models_dir(store.root) / "topic.joblib"
        if legacy.exists():
            log(f"{legacy} is an older pickle-based model and is not loaded (a pickle can run code): "
                "retrain with `python main.py train`")
        registry = Registry(store.root)
        path = registry.active_path()
        if path.is_file():  # loaded by the crawl in the background while the first pages are fetched
            log(f"classifying with {registry.get(registry.active_id()).name}: {path}"
                + ("" if topic_floor is None else f", confidence floor {topic_floor:g}"))
            classifier = ClassifierLoader(store.root, topic_floor)
        else:
            log("no topic model found: crawling without a classifier (articles get their section's topic)")
            classifier = None
    # a loader (a callable without predict) is run by the crawl itself, off the critical path; an
    # unusable model is reported there and the crawl goes on without
    skip = store.hidden_categories() if skip_hidden_topics else ()
    outlet = WatchOutlet(store, on_event, user_agent=options.agent())  # a watch made during the crawl counts too
    sink = StoreSink(store, profile.name, skip_categories=skip, on_watch=outlet)
    if periodic:
        runner = PeriodicCrawler(profile, sink, state_dir=state_dir(store), options=options, classifier=classifier,
                                 on_event=on_event, renderer=renderer)
        return CrawlHandle(store, sink, runner, periodic=True, outlet=outlet)
    sink.start_run()
    runner = Crawler(profile, sink, state_dir=state_dir(store), options=options, classifier=classifier,
                     on_event=on_event, renderer=renderer)
    return CrawlHandle(store, sink, runner, periodic=False, outlet=outlet)


def run_in_thread(handle: CrawlHandle, poll_s: float = 0.2, on_interrupt: Callable[[], None] = lambda: None):
    """Run a crawl in a thread so Ctrl-C (KeyboardInterrupt in this thread) stops it cleanly.
    Returns (summary or None, interrupted); the crawl's own exception is raised unless interrupted."""
    result: list = []
    failure: list = []

    def target():
        try:
            result.append(handle.run())
        except BaseException as exc:  # reported below, in the calling thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="xnews-crawl-main")
    thread.start()
    interrupted = False
    while thread.is_alive():
        try:
            thread.join(poll_s)
        except KeyboardInterrupt:
            if not interrupted:
                interrupted = True
                on_interrupt()
                handle.stop()
    if failure and not interrupted:
        raise failure[0]
    return (result[0] if result else None), interrupted
