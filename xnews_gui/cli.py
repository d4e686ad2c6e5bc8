"""The command line: `python main.py <command>`; with no command it opens the app."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import requests

from . import __version__
from .core.encoding import decode_html
from .core.profile import Profile, ProfileError
from .core.rules import RuleError
from .paths import DataDirError, data_dir, database_path, ensure_writable

MAX_FETCH_BYTES = 10 * 1024 * 1024


class CliError(RuntimeError):
    """An error for the user: printed as one line, exit code 2."""


def port_number(text: str) -> int:
    value = int(text) if text.strip().lstrip("-").isdigit() else -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xnews",
        description="XNews: build site profiles by clicking, crawl, classify and read news offline. "
        "With no command, the desktop app opens.",
    )
    parser.add_argument("--data-dir", help="data folder (default: $XNEWS_HOME or the per-user data folder)")
    parser.add_argument("--version", action="version", version=f"xnews {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("profiles", help="list, show, import, export, check or delete site profiles")
    psub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    psub.add_parser("list", help="list stored profiles").set_defaults(func=cmd_profiles_list, needs_db=True)
    x = psub.add_parser("show", help="print a profile as JSON")
    x.add_argument("name")
    x.set_defaults(func=cmd_profiles_show, needs_db=True)
    x = psub.add_parser("import", help="import a profile JSON file (replaces one of the same name)")
    x.add_argument("file")
    x.set_defaults(func=cmd_profiles_import, needs_db=True)
    x = psub.add_parser("export", help="write a profile as JSON")
    x.add_argument("name")
    x.add_argument("-o", "--output", help="file to write (default: standard output)")
    x.set_defaults(func=cmd_profiles_export, needs_db=True)
    x = psub.add_parser("check", help="run a profile's self-test and report each field")
    x.add_argument("name")
    x.set_defaults(func=cmd_profiles_check, needs_db=True)
    x = psub.add_parser("delete", help="delete a stored profile")
    x.add_argument("name")
    x.set_defaults(func=cmd_profiles_delete, needs_db=True)

    x = sub.add_parser("import-conf", help="import sources from a legacy xnews.conf as profiles")
    x.add_argument("file")
    x.set_defaults(func=cmd_import_conf, needs_db=True)
    x = sub.add_parser("export-conf", help="write profiles that use markers rules as an xnews.conf")
    x.add_argument("names", nargs="+")
    x.add_argument("-o", "--output", help="file to write (default: standard output)")
    x.set_defaults(func=cmd_export_conf, needs_db=True)

    x = sub.add_parser("extract", help="extract one article page and print it as JSON")
    x.add_argument("--profile", required=True, help="profile name (stored) or a profile JSON file")
    x.add_argument("--url", help="the page's URL when reading a file (to make links absolute)")
    x.add_argument("source", metavar="FILE_OR_URL")
    x.set_defaults(func=cmd_extract, needs_db=True)

    x = sub.add_parser("articles", help="list or show stored articles")
    asub = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    y = asub.add_parser("list", help="list articles, newest first")
    y.add_argument("--profile")
    y.add_argument("--category")
    y.add_argument("--limit", type=int, default=20)
    y.set_defaults(func=cmd_articles_list, needs_db=True)
    y = asub.add_parser("show", help="show one article as JSON")
    y.add_argument("id", type=int)
    y.add_argument("--html", action="store_true", help="include the sanitized body HTML")
    y.set_defaults(func=cmd_articles_show, needs_db=True)

    x = sub.add_parser("search", help="full-text search over titles, summaries and bodies")
    x.add_argument("query", nargs="+")
    x.add_argument("--limit", type=int, default=20)
    x.set_defaults(func=cmd_search, needs_db=True)

    x = sub.add_parser("export", help="export stored articles")
    x.add_argument("--format", choices=_export_formats(), default="jsonl")
    x.add_argument("-o", "--output", help="file to write (default: standard output for jsonl/csv)")
    x.add_argument("--profile")
    x.add_argument("--query", help="only articles matching this full-text query")
    x.add_argument("--limit", type=int, default=0, help="at most this many (0 = all)")
    x.set_defaults(func=cmd_export, needs_db=True)

    x = sub.add_parser("demo-site", help="serve the bundled offline demo news site on 127.0.0.1")
    x.add_argument("--port", type=port_number, default=8765, help="port on 127.0.0.1 (default 8765; 0 = any free)")
    x.add_argument("--dump", metavar="DIR", help="write every page to DIR instead of serving")
    x.set_defaults(func=cmd_demo_site, needs_db=False)

    for module in _extension_modules():
        module.register(sub)
    return parser


def _extension_modules():
    from . import cli_classify, cli_crawl

    return [cli_crawl, cli_classify]


def _export_formats():
    from .export import FORMATS

    return list(FORMATS)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.data_dir = data_dir(args.data_dir)
        if args.command is None:
            ensure_writable(args.data_dir)
            from .ui.app import run

            return run(args.data_dir)
        if getattr(args, "needs_db", False):
            _open_db(args.data_dir)
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `xnews search ... | head`: the reader left, nothing to report
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CliError, DataDirError, ProfileError, RuleError, OSError, ValueError) as exc:
        print(f"error: {_describe(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the store's errors and anything unforeseen: one clear line, no traceback
        from .store.db import StoreError

        if isinstance(exc, StoreError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise


def _describe(exc: Exception) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"file not found: {exc.filename}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename}"
    if isinstance(exc, IsADirectoryError):
        return f"is a folder, not a file: {exc.filename}"
    return str(exc)


def _open_db(root: Path) -> None:
    from .bundled import seed_bundled_profiles
    from .store.db import open_database

    ensure_writable(root)
    open_database(database_path(root))
    seed_bundled_profiles()


# --- profiles --------------------------------------------------------------------
def profile_argument(name_or_file: str) -> Profile:
    """A stored profile by name, or a profile JSON file."""
    from .store import repo

    path = Path(name_or_file)
    if name_or_file.endswith(".json") or path.is_file():
        return Profile.from_json(_read_text(path))
    profile = repo.load_profile(name_or_file)
    if profile is None:
        known = ", ".join(repo.profile_names()) or "none"
        raise CliError(f"no profile named {name_or_file!r} (stored profiles: {known})")
    return profile


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text") from None


def cmd_profiles_list(args) -> int:
    from .store import repo

    for name in repo.profile_names():
        p = repo.load_profile(name)
        print(f"{name}\t{', '.join(p.start_urls)}\t{len(p.fields)} fields\t{repo.count_articles(name)} articles")
    return 0


def cmd_profiles_show(args) -> int:
    sys.stdout.write(profile_argument(args.name).to_json())
    return 0


def cmd_profiles_import(args) -> int:
    from .store import repo

    path = Path(args.file)
    profile = Profile.from_json(_read_text(path))
    test = profile.self_test
    if test and test.file and not Path(test.file).is_absolute():
        # the sample lies beside the profile's file: keep where it really is
        sample = (path.parent / test.file).resolve()
        if not sample.is_file():
            raise CliError(f"profile {profile.name!r}: self_test file {test.file!r} not found beside {path}")
        profile = profile.with_(self_test=replace(test, file=str(sample)))
    repo.save_profile(profile)
    print(f"imported profile {profile.name!r}")
    return 0


def cmd_profiles_export(args) -> int:
    text = profile_argument(args.name).to_json()
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_profiles_delete(args) -> int:
    from .store import repo

    if not repo.delete_profile(args.name):
        raise CliError(f"no profile named {args.name!r}")
    print(f"deleted profile {args.name!r}")
    return 0


def cmd_profiles_check(args) -> int:
    from .bundled import self_test_file
    from .core.selftest import check_page

    profile = profile_argument(args.name)
    if not profile.self_test:
        raise CliError(f"profile {profile.name!r} has no self_test (a sample file or URL with expected fields)")
    if profile.self_test.file:
        path = self_test_file(profile)
        html, url = path.read_bytes(), profile.self_test.page_url or path.resolve().as_uri()
    else:
        url = profile.self_test.url
        html = fetch(url)[0]
    checks = check_page(profile, html, url)
    width = max(len(c.field) for c in checks) if checks else 5
    for c in checks:
        print(f"{c.field:<{width}}  {c.status:<8}  {c.detail}")
    failed = [c for c in checks if c.status not in ("ok",)]
    print(f"{len(checks) - len(failed)}/{len(checks)} fields ok")
    return 1 if failed else 0


# --- xnews.conf -----------------------------------------------------------------------
def cmd_import_conf(args) -> int:
    from .core.xnews_conf import ConfError, parse_conf
    from .store import repo

    path = Path(args.file)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = decode_html(raw)[0]
    try:
        profiles = parse_conf(text)
    except ConfError as exc:
        raise CliError(f"{path}: {exc}") from None
    for p in profiles:
        repo.save_profile(p)
        print(f"imported {p.name!r} from {p.start_urls[0]}")
    return 0


def cmd_export_conf(args) -> int:
    from .core.xnews_conf import to_conf

    text, skipped = to_conf([profile_argument(n) for n in args.names])
    for reason in skipped:
        print(f"skipped {reason}", file=sys.stderr)
    if not text:
        raise CliError("none of these profiles can be written as xnews.conf")
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


# --- extraction ---------------------------------------------------------------------
def fetch(url: str, timeout: float = 20.0) -> tuple[bytes, str]:
    """GET an HTML page (http/https only, size-capped); (body, content type)."""
    from .core.urls import UrlError, canonical

    try:
        canonical(url)
    except UrlError as exc:
        raise CliError(str(exc)) from None
    try:
        with requests.get(url, timeout=timeout, stream=True,
                          headers={"User-Agent": f"XNews/{__version__} (+offline news reader)"}) as resp:
            resp.raise_for_status()
            ctype = resp.headers.get("Content-Type", "")
            if ctype and "html" not in ctype.lower() and "xml" not in ctype.lower():
                raise CliError(f"{url} is not an HTML page (Content-Type: {ctype})")
            body = b""
            for chunk in resp.iter_content(65536):
                body += chunk
                if len(body) > MAX_FETCH_BYTES:
                    raise CliError(f"{url} is larger than {MAX_FETCH_BYTES // (1024 * 1024)} MB")
            return body, ctype
    except requests.RequestException as exc:
        raise CliError(f"cannot fetch {url}: {exc}") from None


def cmd_extract(args) -> int:
    from .core.extract import extract

    profile = profile_argument(args.profile)
    source = args.source
    if source.lower().startswith(("http://", "https://")):
        html, ctype = fetch(source)
        url = source
    else:
        path = Path(source)
        html, ctype = path.read_bytes(), None
        url = args.url or path.resolve().as_uri()
    article = extract(html, url, profile, content_type=ctype)
    print(json.dumps(article.to_dict(), ensure_ascii=False, indent=2))
    if not article.ok:
        print("extraction failed: " + "; ".join(article.errors), file=sys.stderr)
        return 1
    return 0


# --- articles -----------------------------------------------------------------------
def cmd_articles_list(args) -> int:
    from .store import repo

    for a in repo.list_articles(profile=args.profile, category=args.category, limit=args.limit):
        cat = f"{a.category} ({a.confidence:.2f})" if a.category and a.confidence is not None else (a.category or "-")
        print(f"{a.id}\t{a.profile}\t{a.published[:16] or '-'}\t{cat}\t{a.title}")
    return 0


def cmd_articles_show(args) -> int:
    from .store import repo

    a = repo.get_article(args.id)
    if a is None:
        raise CliError(f"no article with id {args.id}")
    data = repo.article_dict(a)
    if not args.html:
        data.pop("body_html")
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def cmd_search(args) -> int:
    from .store import repo

    hits = repo.search(" ".join(args.query), limit=args.limit)
    for a in hits:
        print(f"{a.id}\t{a.profile}\t{a.title}")
    print(f"{len(hits)} result(s)", file=sys.stderr)
    return 0


def _selected_articles(args) -> list[dict]:
    from .store import repo
    from .store.models import Article

    if args.query:
        rows = repo.search(args.query, limit=args.limit or 1_000_000)
        if args.profile:
            rows = [a for a in rows if a.profile == args.profile]
    else:
        q = Article.select().order_by(Article.id)
        if args.profile:
            q = q.where(Article.profile == args.profile)
        if args.limit:
            q = q.limit(args.limit)
        rows = list(q)
    return [repo.article_dict(a) for a in rows]


def cmd_export(args) -> int:
    from .export import ExportError, export_articles, write_csv, write_jsonl
    from .paths import image_cache_dir

    articles = _selected_articles(args)
    if args.output:
        try:
            export_articles(articles, args.format, Path(args.output), image_cache_dir(args.data_dir))
        except ExportError as exc:
            raise CliError(str(exc)) from None
    elif args.format == "jsonl":
        write_jsonl(articles, sys.stdout)
    elif args.format == "csv":
        write_csv(articles, sys.stdout)
    else:
        raise CliError(f"--format {args.format} writes a file: add -o FILE")
    print(f"exported {len(articles)} article(s)", file=sys.stderr)
    return 0


# --- demo site ------------------------------------------------------------------------
def cmd_demo_site(args) -> int:
    from .demo import DemoServer, DemoSite
    from .demo.site import dump

    if args.dump:
        n = dump(DemoSite(), Path(args.dump))
        print(f"wrote {n} pages to {args.dump}")
        return 0
    try:
        server = DemoServer(port=args.port)
    except OSError as exc:
        raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    print(f"demo news site at {server.url} (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
