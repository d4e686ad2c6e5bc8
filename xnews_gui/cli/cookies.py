"""`cookies import|show|clear`: a profile's cookies (a login or an accepted consent banner), sent by
its crawls. Kept in <data>/cookies/<profile>.json, readable by the user only."""

from __future__ import annotations

from pathlib import Path

from ..errors import describe_os_error
from .common import CliError, profile_argument


def register(sub) -> None:
    x = sub.add_parser("cookies", help="cookies a profile's crawls send (a login, a consent banner)")
    actions = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    i = actions.add_parser("import", help="keep cookies from a browser's cookies.txt (or a JSON list)")
    i.add_argument("--profile", required=True, help="stored profile name (or a profile JSON file)")
    i.add_argument("file", help="cookies.txt exported from the browser where you logged in")
    s = actions.add_parser("show", help="how many cookies a profile has, for which sites, when they expire")
    s.add_argument("--profile", required=True)
    c = actions.add_parser("clear", help="forget a profile's cookies")
    c.add_argument("--profile", required=True)
    x.set_defaults(func=cmd_cookies, needs_db=True)


def cmd_cookies(args) -> int:
    from ..core.disk.files import FileRefused, read_file
    from ..crawl.cookies import MAX_FILE_BYTES, CookieError, CookieFile, cookies_path

    profile = profile_argument(args.profile, args.store)
    path = cookies_path(args.store.root, profile.name)
    try:
        if args.action == "import":
            data = read_file(Path(args.file), MAX_FILE_BYTES, "cookies file")
            if b"\x00" in data:
                raise CookieError(f"{args.file} holds binary data: expected a cookies.txt or a JSON list of cookies")
            text = data.decode("utf-8", errors="replace")
            jar = CookieFile(CookieFile.import_text(text))
            summary = jar.summary()  # everything read and shown before the file is written
            jar.save(path)
            print(f"{profile.name}: {summary} (kept in {path}, readable by you only)")
        elif args.action == "show":
            print(f"{profile.name}: {CookieFile.load(path).summary()}")
        else:
            path.unlink(missing_ok=True)
            print(f"{profile.name}: cookies forgotten")
    except (CookieError, FileRefused) as exc:
        raise CliError(f"cookies: {exc}") from None
    except OSError as exc:
        raise CliError(f"cookies: {describe_os_error(exc)}") from None
    return 0
