"""`profiles list|show|import|export|check|history|revert|delete`, `import-conf`, `export-conf`."""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.text.encoding import decode_html
from ..core.disk.files import MAX_PAGE_BYTES, MAX_PROFILE_BYTES, read_file
from ..core.profile.profile import Profile
from .common import CliError, profile_argument


def register(sub) -> None:
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
    x = psub.add_parser("history", help="list a profile's saved versions, or what changed since one of them")
    x.add_argument("name")
    x.add_argument("version", nargs="?", type=int, help="a version number: show how it differs from the current profile")
    x.set_defaults(func=cmd_profiles_history, needs_db=True)
    x = psub.add_parser("revert", help="make an earlier version the current profile (recorded as a new version)")
    x.add_argument("name")
    x.add_argument("version", type=int)
    x.set_defaults(func=cmd_profiles_revert, needs_db=True)
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


def cmd_profiles_list(args) -> int:
    store = args.store
    for name in store.profile_names():
        p = store.load_profile(name)
        print(f"{name}\t{', '.join(p.start_urls)}\t{len(p.fields)} fields\t{store.count_articles(name)} articles")
    return 0


def cmd_profiles_show(args) -> int:
    from ..crawl.proxies import ProxyConfig, ProxyError
    from .proxies import describe

    profile = profile_argument(args.name, args.store)
    sys.stdout.write(profile.to_json())
    try:  # on standard error: the output stays the profile's JSON
        print(f"proxies: {describe(*ProxyConfig.load(args.store.root).for_profile(profile.name))}", file=sys.stderr)
    except (ProxyError, OSError) as exc:
        print(f"proxies: cannot be read ({exc}): its crawls are refused until that is fixed", file=sys.stderr)
    return 0


def cmd_profiles_import(args) -> int:
    from ..services.profiles import read_profile_file

    path = Path(args.file)
    profile = read_profile_file(path)
    replaced = profile.name in args.store.profile_names()
    number = args.store.save_profile(profile, reason=f"imported from file {path.name}")
    kept = f"; it replaces the stored one, kept in `profiles history {profile.name}`" if replaced else ""
    print(f"imported profile {profile.name!r} (version {number}{kept})")
    return 0


def cmd_profiles_export(args) -> int:
    text = profile_argument(args.name, args.store).to_json()
    if args.output:
        _write(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_profiles_delete(args) -> int:
    if not args.store.delete_profile(args.name):
        raise CliError(f"no profile named {args.name!r}")
    print(f"deleted profile {args.name!r}")
    return 0


def cmd_profiles_check(args) -> int:
    from ..bundled import self_test_file
    from ..core.induction.selftest import check_page
    from .extract import fetch

    profile = profile_argument(args.name, args.store)
    _print_last_crawl(args.store, profile.name)
    if not profile.self_test:
        raise CliError(f"profile {profile.name!r} has no self_test (a sample file or URL with expected fields)")
    if profile.self_test.file:
        # a profile file's sample lies in its folder; a stored profile's beside the bundled ones or where
        # `profiles import` found it (an absolute path, checked then)
        from_file = args.name.endswith(".json") or Path(args.name).is_file()
        path = self_test_file(profile, Path(args.name).parent) if from_file else self_test_file(profile, absolute=True)
        html = read_file(path, MAX_PAGE_BYTES, "self-test page")
        url = profile.self_test.page_url or path.resolve().as_uri()
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


def _when(version) -> str:
    at = getattr(version, "at", None) or getattr(version, "started", None)
    return at.strftime("%Y-%m-%d %H:%M:%S") if hasattr(at, "strftime") else str(at)[:19]


def cmd_profiles_history(args) -> int:
    from ..core.profile.profile_diff import diff_profiles

    store = args.store
    profile_argument(args.name, store)  # a clear error for an unknown name
    versions = store.profile_history(args.name)
    if args.version is None:
        print(f"{'version':>7}  {'saved (UTC)':<19}  reason")
        for i, v in enumerate(versions):
            print(f"{v.number:>7}  {_when(v):<19}  {v.reason}{'  (current)' if i == 0 else ''}")
        return 0
    version = store.profile_version(args.name, args.version)
    if version is None:
        kept = ", ".join(str(v.number) for v in reversed(versions)) or "none"
        raise CliError(f"profile {args.name!r} has no version {args.version} (kept: {kept})")
    current = store.load_profile(args.name)
    old = Profile.from_json(version.json)
    changes = diff_profiles(old, current)
    print(f"version {version.number} ({_when(version)}, {version.reason}) -> current:")
    for change in changes:
        print(f"  {change}")
    if not changes:
        print("  no difference")
    return 0


def cmd_profiles_revert(args) -> int:
    from ..store import StoreError

    profile_argument(args.name, args.store)
    try:
        _, number = args.store.revert_profile(args.name, args.version)
    except StoreError as exc:
        raise CliError(str(exc)) from None
    print(f"profile {args.name!r} is version {args.version} again (saved as version {number})")
    return 0


def _print_last_crawl(store, name: str) -> None:
    """The degraded fields of the profile's last crawl (core/profile/verify.py), with a few failing pages."""
    import json

    run = store.last_runs().get(name)
    try:
        summary = json.loads(run.stats_json) if run is not None else {}
    except ValueError:
        return
    counts = summary.get("degraded_counts") or {}
    for field, urls in (summary.get("degraded_fields") or {}).items():
        failed, checked = (counts.get(field) or [len(urls), 0])[:2]
        of = f" of the last {checked}" if checked else ""
        print(f"last crawl ({_when(run)[:16]}): {field} degraded on {failed}{of} pages, e.g. {', '.join(urls[:3])}")


def cmd_import_conf(args) -> int:
    from ..core.profile.xnews_conf import ConfError, parse_conf

    path = Path(args.file)
    raw = read_file(path, MAX_PROFILE_BYTES, "xnews.conf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = decode_html(raw)[0]
    try:
        profiles = parse_conf(text)
    except ConfError as exc:
        raise CliError(f"{path}: {exc}") from None
    stored = set(args.store.profile_names())
    for p in profiles:
        args.store.save_profile(p, reason=f"imported from xnews.conf {path.name}")
        kept = f"; it replaces the stored one, kept in `profiles history {p.name}`" if p.name in stored else ""
        print(f"imported {p.name!r} from {p.start_urls[0]}{kept}")
    return 0


def cmd_export_conf(args) -> int:
    from ..core.profile.xnews_conf import to_conf

    text, skipped = to_conf([profile_argument(n, args.store) for n in args.names])
    for reason in skipped:
        print(f"skipped {reason}", file=sys.stderr)
    if not text:
        raise CliError("none of these profiles can be written as xnews.conf")
    if args.output:
        _write(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _write(output: str, text: str) -> None:
    """A regular file only, whole or not at all (a pipe would hang the command, a device be overwritten)."""
    from ..export import ExportError, write_text

    try:
        write_text(output, text)
    except ExportError as exc:
        raise CliError(str(exc)) from None
