"""`scrapy-project` and `import-items`: the scale-out commands of the CLI."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    p = subparsers.add_parser("scrapy-project", help="write a standalone Scrapy project that crawls profiles "
                              "(one process, or many sharing a Redis frontier)")
    p.add_argument("--profile", action="append", required=True, metavar="NAME",
                   help="stored profile name or profile JSON file (repeat for several)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write the project into")
    p.add_argument("--no-model", action="store_true", help="ship no topic model (items get their section's topic)")
    p.set_defaults(func=cmd_scrapy_project, needs_db=True)

    p = subparsers.add_parser("import-items", help="store JSON lines from Scrapy workers as articles")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--profile", help="profile name for lines that carry none")
    p.set_defaults(func=cmd_import_items, needs_db=True)

    p = subparsers.add_parser("follow-cluster", help="store a cluster crawl's items as the workers send them "
                              "(Scrapy workers sharing a Redis frontier)")
    p.add_argument("--redis", required=True, metavar="URL", help="the workers' XNEWS_REDIS_URL")
    p.add_argument("--profile", required=True, metavar="NAME", help="the profile the workers crawl")
    p.set_defaults(func=cmd_follow_cluster, needs_db=True)


def cmd_scrapy_project(args) -> int:
    from ..services.model_registry import Registry
    from ..scale.project import ProjectError, write_project
    from .common import CliError, profile_argument

    profiles = [profile_argument(name, args.store) for name in args.profile]
    model = None if args.no_model else Registry(Path(args.data_dir)).active_path()  # the model in use
    if model is not None and not model.is_file():
        model = None
    try:
        write_project(Path(args.output), profiles, model)
    except ProjectError as exc:
        raise CliError(str(exc)) from None
    names = ", ".join(p.name for p in profiles)
    print(f"wrote a Scrapy project for {names} to {args.output}"
          + ("" if model else " (no topic model)"))
    print(f"  cd {args.output} && python -m pip install -r requirements.txt && "
          f"scrapy crawl xnews -a profile={profiles[0].name} -O items.jsonl")
    for p in profiles:
        if p.crawl.max_pages:
            print(f"  note: {p.name}'s max_pages {p.crawl.max_pages} holds for each worker: in a cluster of N "
                  f"workers they fetch up to N x {p.crawl.max_pages} pages", file=sys.stderr)
    return 0


def cmd_import_items(args) -> int:
    from ..services.watches import END_WAIT_S, WatchOutlet
    from ..store.importer import ImportError_, import_files
    from .common import CliError

    outlet = WatchOutlet(args.store, _print_watch)  # the imported articles that match watches: told, fed, posted
    outlet.start()
    try:
        report = import_files([Path(f) for f in args.files], args.store, default_profile=args.profile,
                              on_watch=outlet)
    except ImportError_ as exc:
        raise CliError(str(exc)) from None
    finally:
        outlet.close(END_WAIT_S)
    for problem in report.problems[:20]:
        print(f"  skipped {problem}", file=sys.stderr)
    if len(report.problems) > 20:
        print(f"  ... and {len(report.problems) - 20} more", file=sys.stderr)
    print(f"imported {report.created} new article(s), {report.duplicates} already stored, "
          f"{len(report.problems)} line(s) skipped")
    _print_webhooks(outlet.add_to({}))
    return 1 if report.problems else 0


def cmd_follow_cluster(args) -> int:
    """Until the cluster's crawl is over (or Ctrl-C): items stored as they come, a progress line a second."""
    from ..core.profile.profile import is_profile_name
    from ..services.cluster import ClusterFollower, redis_url_problem, shown_url
    from .common import CliError

    if not is_profile_name(args.profile):
        raise CliError(f"{args.profile!r} is not a profile name")
    problem = redis_url_problem(args.redis)
    if problem:
        raise CliError(f"--redis {shown_url(args.redis)!r}: {problem}")

    def show(event) -> None:
        if event.kind == "stats":
            s = event.data
            print(f"  {s['pages']} pages, {s['articles']} new articles, {s['queue']} queued, "
                  f"{s['workers']} worker(s)", file=sys.stderr)
        else:
            _print_watch(event)

    follower = ClusterFollower(args.profile, args.redis, args.store, show, stats_interval=1.0)
    try:
        summary = follower.run()
    except KeyboardInterrupt:  # run's own ending (its outlet closed) is done by now
        follower.stop()
        summary = dict(follower.stats, status="stopped")
        if follower.outlet is not None:
            follower.outlet.add_to(summary)
    except Exception as exc:  # Redis unreachable, a bad URL: one line
        raise CliError(f"cannot follow the cluster at {shown_url(args.redis)}: {exc}") from None
    for problem in follower.report.problems[:20]:
        print(f"  skipped {problem}", file=sys.stderr)
    print(f"{summary['status']}: {summary['articles']} new article(s), {summary['duplicates']} already stored, "
          f"{summary['errors']} item(s) not stored, {summary['pages']} pages crawled by the cluster")
    if summary.get("stopped_reason"):
        print(f"  {summary['stopped_reason']}", file=sys.stderr)
    _print_webhooks(summary)
    return 1 if follower.report.problems or summary["status"] != "finished" else 0


def _print_webhooks(summary: dict) -> None:
    from ..services.watches import webhooks_line

    line = webhooks_line(summary)
    if line:
        print(f"  {line}", file=sys.stderr if line.startswith("WARNING") else sys.stdout)


def _print_watch(event) -> None:
    """A new article that matched a watch, as `crawl` prints it; a watch's warning (a webhook that failed)."""
    if event.kind == "log" and event.data.get("warning"):
        print(f"  {event.data['message']}", file=sys.stderr, flush=True)
    elif event.kind == "watch":
        data = event.data
        print(f"  \u2605 watch {data['watch']!r}: article {data['id']} {data.get('title', '')} "
              f"{data.get('url', '')}".rstrip(), flush=True)
