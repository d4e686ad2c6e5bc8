"""`proxies set|show|clear`: the proxies crawls go through, for all crawls or per profile (kept in
<data>/proxies.json, readable by you only; passwords are shown masked)."""

from __future__ import annotations

from ..errors import describe_os_error
from .common import CliError


def register(sub) -> None:
    x = sub.add_parser("proxies", help="proxies for all crawls or per profile (http, https, socks5; user and password)")
    actions = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = actions.add_parser("set", help="go through these proxies, in turn (a failing one is set aside for a while)")
    s.add_argument("urls", nargs="+", metavar="URL", help="e.g. http://user:password@host:3128, socks5://host:1080")
    s.add_argument("--profile", help="only this profile's crawls (default: every crawl without proxies of its own)")
    actions.add_parser("show", help="the proxies of every crawl and of each profile")
    c = actions.add_parser("clear", help="crawl without proxies (all, or one profile's own)")
    c.add_argument("--profile")
    x.set_defaults(func=cmd_proxies, needs_db=True)


def describe(urls: list[str], where: str) -> str:
    """The proxies as `profiles show` and `proxies show` say them (passwords masked)."""
    from ..crawl.proxies import mask

    if not urls:
        return "none (direct connections)"
    whose = " (the profile's own)" if where == "profile" else " (set for all crawls)" if where == "all" else ""
    return ", ".join(mask(u) for u in urls) + whose


def cmd_proxies(args) -> int:
    from ..crawl.proxies import ProxyConfig, ProxyError

    store = args.store
    profile = getattr(args, "profile", None)
    if profile is not None and profile not in store.profile_names():
        raise CliError(f"no profile named {profile!r} (profiles: {', '.join(store.profile_names()) or 'none'})")
    try:
        try:
            config = ProxyConfig.load(store.root)
        except ProxyError:
            if args.action != "clear" or profile is not None:
                raise
            config = ProxyConfig()  # the way out the crawl's refusal names: a new, empty file
        if args.action == "show":
            print(f"all crawls: {describe(config.everywhere, '')}")
            for name, urls in sorted(config.profiles.items()):
                print(f"{name}: {describe(urls, '')}")
            return 0
        config.set(args.urls if args.action == "set" else [], profile)
        path = config.save(store.root)
    except ProxyError as exc:
        raise CliError(f"proxies: {exc}" + ("" if args.action == "clear" and profile is None else
                                            "; `proxies clear` starts the file again")) from None
    except OSError as exc:
        raise CliError(f"proxies: {describe_os_error(exc)}") from None
    urls, where = config.for_profile(profile) if profile else (config.everywhere, "all")
    print(f"{profile or 'all crawls'}: {describe(urls, where if profile is None or where == 'profile' else where)}"
          f" (kept in {path}, readable by you only)")
    return 0
