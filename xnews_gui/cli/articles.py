"""`articles list|show`, `search`, `export`: reading the store from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.text.topics import display_name, label_from_text
from ..store.repo import article_dict
from .common import CliError, count, positive


def _export_formats():
    from ..export import FORMATS

    return list(FORMATS)


def register(sub) -> None:
    x = sub.add_parser("articles", help="list or show stored articles")
    asub = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    y = asub.add_parser("list", help="list articles, newest first")
    y.add_argument("--profile")
    y.add_argument("--category", help="a topic's label or its name (\"Van hoa\" or \"Văn hóa\")")
    y.add_argument("--limit", type=positive, default=20)
    y.set_defaults(func=cmd_articles_list, needs_db=True)
    y = asub.add_parser("show", help="show one article as JSON")
    y.add_argument("id", type=int)
    y.add_argument("--html", action="store_true", help="include the sanitized body HTML")
    y.set_defaults(func=cmd_articles_show, needs_db=True)

    x = sub.add_parser("search", help="full-text search over titles, summaries and bodies")
    x.add_argument("query", nargs="+")
    x.add_argument("--limit", type=positive, default=20)
    x.set_defaults(func=cmd_search, needs_db=True)

    x = sub.add_parser("export", help="export stored articles")
    x.add_argument("--format", choices=_export_formats(),
                   help="default: the one the file's name ends in (.epub, .csv, ...); jsonl on standard output")
    x.add_argument("-o", "--output", help="file to write (default: standard output for jsonl/csv)")
    x.add_argument("--profile")
    x.add_argument("--query", help="only articles matching this full-text query")
    x.add_argument("--limit", type=count, default=0, help="at most this many (0 = all)")
    x.add_argument("--skip-duplicates", action="store_true",
                   help="one article per story: leave out near-duplicates of an article already exported")
    x.set_defaults(func=cmd_export, needs_db=True)


def cmd_articles_list(args) -> int:
    _check_profile(args.store, args.profile)
    category = label_from_text(args.category) if args.category else None
    for a in args.store.list_articles(profile=args.profile, category=category, limit=args.limit):
        topic = display_name(a.category)  # as the app shows it: "Văn hóa", not the label "Van hoa"
        cat = f"{topic} ({a.confidence:.2f})" if a.category and a.confidence is not None else (topic or "-")
        print(f"{a.id}\t{a.profile}\t{a.published[:16] or '-'}\t{cat}\t{a.title}")
    return 0


def cmd_articles_show(args) -> int:
    a = args.store.get_article(args.id)
    if a is None:
        raise CliError(f"no article with id {args.id}")
    data = article_dict(a)
    data["earlier_versions"] = len(args.store.article_versions(a.id))
    if not args.html:
        data.pop("body_html")
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def cmd_search(args) -> int:
    from ..store.repo import search_terms

    query = " ".join(args.query)
    if not any(search_terms(query)):
        raise CliError("give the words to search for, e.g. xnews search giá vàng")
    hits = args.store.search(query, limit=args.limit)
    for a in hits:
        print(f"{a.id}\t{a.profile}\t{a.title}")
    print(f"{len(hits)} result(s)", file=sys.stderr)
    return 0


def _check_profile(store, name: str | None) -> None:
    """An unknown --profile is an error, not an empty answer (a deleted profile's articles still count)."""
    if name is None or name in store.profile_names() or store.count_articles(profile=name):
        return
    known = ", ".join(store.profile_names()) or "none yet"
    raise CliError(f"no profile or stored articles named {name!r} (profiles: {known})")


def _selected_articles(args) -> list[dict]:
    from ..store.queries import ArticleFilter
    from ..store.repo import search_terms

    store = args.store
    _check_profile(store, args.profile)
    if args.query is not None and not args.query.strip():
        raise CliError("--query is empty: give the words the exported articles must contain")
    if args.query is not None and not any(search_terms(args.query)):
        raise CliError(f"--query {args.query!r} has no word to search for: give the words the exported "
                       f"articles must contain")
    if args.skip_duplicates:
        store.group_duplicates()  # articles stored by an older XNews get their groups now
    if args.query:  # the best matches first, among the profile's articles, the limit taken last
        flt = ArticleFilter(profile=args.profile, text=args.query, hide_hidden_categories=False,
                            hide_duplicates=args.skip_duplicates)
        _, selected = store.ordered_columns(flt, sort="id")
        selected = set(selected)
        ids = [i for i in store.search_ids(args.query, limit=store.count_articles() + 1) if i in selected]
        return store.articles_for_export(ids[:args.limit] if args.limit else ids)
    return store.articles_in_order(profile=args.profile, limit=args.limit, skip_duplicates=args.skip_duplicates)


def _export_format(args) -> str:
    """--format, else what the output file's name says; a name and a --format that disagree are refused."""
    from ..export import NAMES, SUFFIXES, format_for

    if not args.output:
        return args.format or "jsonl"
    out = Path(args.output)
    named = format_for(out, args.format)
    if named is None:
        raise CliError(f"cannot tell the format from the name {out.name!r}: end it in "
                       f"{', '.join(sorted(set(SUFFIXES) | {'.xml'}))}, or give --format")
    if args.format and named != args.format:
        raise CliError(f"the name {out.name!r} says {NAMES[named]}, but --format says {args.format}: "
                       f"rename the file or change --format")
    return named


def cmd_export(args) -> int:
    from ..export import NAMES, ExportError, check_target, export_articles, write_csv, write_jsonl

    args.format = _export_format(args)
    if args.output:
        try:
            check_target(args.output)
        except ExportError as exc:
            raise CliError(str(exc)) from None
    articles = _selected_articles(args)
    if not articles:  # an empty book would replace a file that held something: nothing is written
        what = " and ".join(f"{k} {v!r}" for k, v in (("--profile", args.profile), ("--query", args.query)) if v)
        print(f"nothing to export: no stored article matches{' ' + what if what else ''}"
              + (f"; {args.output} was not written" if args.output else ""), file=sys.stderr)
        return 1
    if args.output:
        try:
            export_articles(articles, args.format, Path(args.output), args.store)
        except ExportError as exc:
            raise CliError(str(exc)) from None
    elif args.format in ("jsonl", "csv"):
        try:
            (write_jsonl if args.format == "jsonl" else write_csv)(articles, sys.stdout)
            sys.stdout.flush()  # a full disk shows here at the latest: never "exported" after a failed write
        except BrokenPipeError:
            raise
        except OSError as exc:
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
            raise CliError(f"cannot write the export to standard output: {exc.strerror or exc}") from None
    else:
        raise CliError(f"--format {args.format} writes a file: add -o FILE")
    where = f" as {NAMES[args.format]} to {args.output}" if args.output else ""
    print(f"exported {len(articles)} article(s){where}", file=sys.stderr)
    return 0
