"""`crawl`: crawl one profile into the store, with progress lines and a summary."""

from __future__ import annotations

import argparse
import gc
import sys
import threading
import time

from .common import count, floor_argument, positive, profile_argument


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def render_pages(text: str) -> int:
    value = positive(text)
    if value > 4:
        raise argparse.ArgumentTypeError(f"{text!r}: 1 to 4 offscreen pages")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser("crawl", help="crawl a site with its profile and store the articles")
    p.add_argument("--profile", required=True, help="stored profile name (or a profile JSON file)")
    p.add_argument("--max-pages", type=count, default=0, help="stop after this many pages (0 = no limit)")
    p.add_argument("--max-articles", type=count, default=0, help="stop after this many new articles")
    p.add_argument("--max-seconds", type=seconds, default=0, help="stop after this many seconds (0 = no limit)")
    p.add_argument("--strategy", choices=("bfs", "dfs", "random", "best_first", "importance", "pagerank",
                                          "focused"), help="crawl order (default: the profile's)")
    p.add_argument("--concurrency", type=positive, help="worker threads (default: the profile's)")
    p.add_argument("--delay", type=seconds, help="seconds between requests to one host (default: the profile's)")
    p.add_argument("--contact", default="", help="e-mail or URL added to the User-Agent")
    p.add_argument("--periodic", action="store_true", help="re-crawl forever at the adaptive revisit interval")
    p.add_argument("--no-images", action="store_true", help="do not download article images")
    p.add_argument("--no-raw", action="store_true", help="do not keep the raw HTML of fetched pages")
    p.add_argument("--fresh", action="store_true", help="forget the saved frontier and seen URLs first")
    p.add_argument("--revisit", action="store_true",
                   help="also ask again for every stored article of the profile (conditional requests: an "
                        "unchanged page costs a 304), storing changed ones as new versions and marking gone ones")
    p.add_argument("--quiet", action="store_true", help="only the summary")
    p.add_argument("--skip-hidden-topics", action="store_true",
                   help="don't store articles of topics marked 'not interested' (they are remembered as seen)")
    p.add_argument("--render-pages", type=render_pages, default=2,
                   help="offscreen browser pages rendering a 'render' profile's pages or loading more on its list "
                        "pages (1-4, default 2)")
    p.add_argument("--topic-floor", type=floor_argument, metavar="F",
                   help="give an article no topic under this model confidence, 0 to 0.99 (default: the "
                        "model's, from its card; `evaluate MODEL` shows the trade)")
    p.set_defaults(func=cmd_crawl, needs_db=True)


def cmd_crawl(args) -> int:
    from ..crawl.engine import CrawlOptions
    from ..crawl.state import CrawlBusy
    from ..services.crawl import forget_state, run_in_thread, start_crawl

    store = args.store
    profile = profile_argument(args.profile, store)
    if args.fresh:
        forget_state(store, profile.name)
    options = CrawlOptions(max_pages=args.max_pages, max_articles=args.max_articles, max_seconds=args.max_seconds,
                           concurrency=args.concurrency, delay_s=args.delay, strategy=args.strategy,
                           contact=args.contact, fetch_images=not args.no_images, save_raw=not args.no_raw,
                           revisit=args.revisit)
    printer = _Printer(quiet=args.quiet)

    def make_handle(renderer=None):
        return start_crawl(profile, store, options, printer, skip_hidden_topics=args.skip_hidden_topics,
                           periodic=args.periodic, log=print, renderer=renderer, topic_floor=args.topic_floor)

    def stopping():
        print("stopping... (the crawl resumes where it stopped next time)", file=sys.stderr)

    try:
        if profile.needs_browser:  # pages that need JavaScript: Qt offscreen (every pass of --periodic)
            from ..ui.render_run import run_with_render_pool

            handle = None

            def make(pool):
                nonlocal handle
                handle = make_handle(pool)
                return handle

            summary, interrupted = run_with_render_pool(args.render_pages, make, on_interrupt=stopping)
        else:
            if getattr(args, "owns_process", False):  # main.py / the xnews script, not a test calling main()
                # what is loaded by now lives as long as the process: the collector's full passes need
                # not walk it (one during a crawl cost ~30 ms, and so did the last one in exit_now)
                gc.freeze()
                args.exit_now = True  # when the crawl is over, everything is written and closed
            handle = make_handle()
            summary, interrupted = run_in_thread(handle, on_interrupt=stopping)
    except CrawlBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.periodic:
        return 130 if interrupted else 0
    summary = summary or handle.summary or dict(handle.stats, status="stopped")
    _print_summary(summary)
    if interrupted:
        return 130
    if summary.get("status") == "refused" and summary.get("refused_reason"):
        print(f"error: crawl refused: {summary['refused_reason']}", file=sys.stderr)
        return 1
    if summary.get("status") == "failed" and summary.get("pages") and summary.get("failed_reason"):
        print(f"error: crawl failed: {summary['failed_reason']}", file=sys.stderr)
        return 1
    if not summary.get("pages") and not summary.get("revisited"):  # (a revisit answered 304 fetched no page)
        first = f" ({summary['failed_reason'].partition(': ')[2]})" if summary.get("failed_reason") else ""
        print(f"error: nothing could be fetched from the start URLs{first}; "
              "check the address, the network and robots.txt", file=sys.stderr)
        return 1
    return 0


class _Printer:
    """Progress lines from crawl events (called from crawler threads)."""

    def __init__(self, quiet: bool = False, every_s: float = 2.0):
        self.quiet = quiet
        self.every_s = every_s
        self._last = 0.0
        self._lock = threading.Lock()

    def __call__(self, event) -> None:
        if self.quiet and event.kind != "watch":  # a watch's match is printed even then: it was asked for
            return
        data = event.data
        with self._lock:
            if event.kind == "stats":
                now = time.monotonic()
                if now - self._last < self.every_s:
                    return
                self._last = now
                print(f"  {data['pages']} pages, {data['articles']} new articles, queue {data['queue']}, "
                      f"{data['errors']} errors, {data['pages_per_s']:.1f} pages/s", flush=True)
            elif event.kind == "error":
                print(f"  ! {data['kind']}: {data['url']} {data['message']}", flush=True)
            elif event.kind == "log":
                print(f"  {data['message']}", flush=True)
            elif event.kind == "watch":
                print(f"  \u2605 watch {data['watch']!r}: article {data['id']} {data.get('title', '')} "
                      f"{data.get('url', '')}".rstrip(), flush=True)


def _print_summary(s: dict) -> None:
    from ..services.watches import webhooks_line

    print(f"crawl {s['status']}: {s['pages']} pages ({s['list_pages']} lists, {s['article_pages']} articles), "
          f"{s['articles']} new articles, {s['duplicates']} duplicates, {s['known_skipped']} already known, "
          f"{s['images']} images" + (f" ({s['image_errors']} not fetched)" if s.get("image_errors") else "")
          + (f", {s['skipped_topic']} left out (skipped topics)" if s.get("skipped_topic") else ""))
    print(f"  {s['elapsed_s']:.1f} s, {s['pages_per_s']:.1f} pages/s, harvest rate {s['harvest_rate']:.0%}, "
          f"queue left {s['queue']}")
    if s["errors"]:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(s["errors_by_kind"].items()))
        print(f"  {s['errors']} errors: {kinds}")
    if s.get("revisited") or s.get("revisits_newer") or s.get("revisits_due") or s.get("revisits_deferred"):
        print(f"  revisits: {s.get('revisited', 0)} stored articles asked again ({s.get('revisits_newer', 0)} newer "
              f"in a sitemap or feed, {s.get('revisits_due', 0)} due): {s.get('not_modified', 0)} not modified "
              f"(304), {s.get('unchanged', 0)} unchanged, {s.get('updated', 0)} updated, {s.get('gone', 0)} gone"
              + (f", {s['still_gone']} still gone" if s.get("still_gone") else "")
              + (f"; {s['revisits_deferred']} newer left for the next pass (revisit budget)"
                 if s.get("revisits_deferred") else ""))
    if s.get("next_revisit_at"):
        print(f"  next revisit due {time.strftime('%Y-%m-%d %H:%M', time.localtime(s['next_revisit_at']))}")
    fill = ", ".join(f"{f} {r:.0%}" for f, r in s["fill_rate"].items() if r is not None)
    if fill:
        print(f"  field fill rate: {fill}")
    if s.get("loaded_more_pages"):
        print(f"  loaded more on {s['loaded_more_pages']} list page(s): {s['loaded_more']} click(s) or scroll(s) "
              f"brought new links" + (f", {s['more_at_limit']} stopped at a limit" if s.get("more_at_limit") else ""))
    for warning in s.get("warnings", []):
        print(f"  WARNING: {warning}")
    webhooks = webhooks_line(s)
    if webhooks:
        print(f"  {webhooks}")
    if s.get("fallbacks"):
        print(f"  body: fallback on {s['fallbacks']} article(s) (the main-text extractor filled what the rules missed)")
    for f, urls in (s.get("degraded_fields") or {}).items():
        why = (s.get("degraded_why") or {}).get(f)
        print(f"  WARNING: field '{f}' degraded: its values fail verification on recent pages"
              f"{f' ({why})' if why else ''}, e.g. {', '.join(urls[:3])}")
    for b in s.get("broken_fields", []):
        before = f" (was {b['previous']:.0%})" if b.get("previous") is not None else ""
        print(f"  WARNING: rule for '{b['field']}' probably broken: filled on {b['fill_rate']:.0%} of "
              f"article pages{before}; check the profile")
