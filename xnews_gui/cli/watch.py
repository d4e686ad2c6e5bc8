"""`watch add|list|show|remove`: saved searches that tell when a new article matches (`crawl` prints them)."""

from __future__ import annotations

import sys

from .common import CliError, positive


def register(sub) -> None:
    x = sub.add_parser("watch", help="watches: saved searches that tell you when a new article matches")
    wsub = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    y = wsub.add_parser("add", help="watch for new articles with these words, of this topic, from this site")
    y.add_argument("name", help="the watch's name")
    y.add_argument("--words", default="", help="words as in `search` (each must occur; no accents needed)")
    y.add_argument("--topic", help="a topic label (as `articles list` shows them)")
    y.add_argument("--site", help="a profile name")
    y.add_argument("--webhook", default="", help="an http(s) URL each matching article is POSTed to (JSON)")
    y.set_defaults(func=cmd_add, needs_db=True)
    y = wsub.add_parser("list", help="the watches, their new and total articles, their feed files")
    y.set_defaults(func=cmd_list, needs_db=True)
    y = wsub.add_parser("show", help="a watch's articles, newest first")
    y.add_argument("name")
    y.add_argument("--limit", type=positive, default=20)
    y.set_defaults(func=cmd_show, needs_db=True)
    y = wsub.add_parser("remove", help="delete a watch and its list (the articles stay)")
    y.add_argument("name")
    y.set_defaults(func=cmd_remove, needs_db=True)


def cmd_add(args) -> int:
    from ..core.text.topics import DISPLAY_NAMES
    from ..export import ExportError
    from ..services.watches import write_feed

    store = args.store
    if args.site and args.site not in store.profile_names() and not store.count_articles(profile=args.site):
        known = ", ".join(store.profile_names()) or "none yet"
        raise CliError(f"no profile named {args.site!r} (profiles: {known})")
    watch = store.add_watch(args.name, words=args.words, topic=args.topic, site=args.site, webhook=args.webhook)
    if watch.topic and watch.topic not in DISPLAY_NAMES and watch.topic not in store.distinct_values("category"):
        print(f"warning: no stored article has the topic {watch.topic!r} and the bundled topics are "
              f"{', '.join(DISPLAY_NAMES.values())}: the watch matches only articles labelled {watch.topic!r}",
              file=sys.stderr)
    try:
        path = write_feed(store, watch.name)  # a feed reader can subscribe before the first match
    except ExportError as exc:
        raise CliError(f"watch {watch.name!r} added, but its feed file cannot be written: {exc}") from None
    print(f"watch {watch.name!r} added: {watch.describe()}" + (f"; webhook {watch.webhook}" if watch.webhook else ""))
    print(f"  its Atom feed: {path}")
    return 0


def cmd_list(args) -> int:
    from ..services.watches import feed_path

    store = args.store
    watches = store.watches()
    counts, unseen = store.watch_hit_counts(), store.unseen_watch_hits()
    for w in watches:
        new = unseen.get(w.name, 0)
        print(f"{w.name}\t{w.describe()}\t{counts.get(w.name, 0)} article(s)" + (f", {new} new" if new else "")
              + (f"\twebhook {w.webhook}" if w.webhook else "") + f"\t{feed_path(store.root, w.name)}")
    print(f"{len(watches)} watch(es)" if watches else "no watch yet: add one with `watch add NAME --words ...`",
          file=sys.stderr)
    return 0


def cmd_show(args) -> int:
    store = args.store
    if store.watch(args.name) is None:
        raise CliError(f"no watch named {args.name!r}")
    for a in store.watch_articles(args.name, limit=args.limit):
        print(f"{a['id']}\t{a['profile']}\t{a['hit_at'][:16]}\t{a['title']}\t{a['url']}")
    return 0


def cmd_remove(args) -> int:
    from ..services.watches import feed_path

    if not args.store.remove_watch(args.name):
        raise CliError(f"no watch named {args.name!r}")
    feed_path(args.store.root, args.name).unlink(missing_ok=True)
    print(f"watch {args.name!r} removed")
    return 0
