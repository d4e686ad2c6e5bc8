"""`extract FILE_OR_URL`: one article page through a profile, printed as JSON; `reextract --profile P`:
the profile's stored articles extracted again from their saved pages."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ..core.disk.files import MAX_PAGE_BYTES, read_file
from .common import CliError, profile_argument


def register(sub) -> None:
    x = sub.add_parser("extract", help="extract one article page and print it as JSON")
    x.add_argument("--profile", required=True, help="profile name (stored) or a profile JSON file")
    x.add_argument("--url", help="the page's URL when reading a file (to make links absolute)")
    x.add_argument("source", metavar="FILE_OR_URL")
    x.set_defaults(func=cmd_extract, needs_db=True)

    x = sub.add_parser("reextract", help="extract a profile's stored articles again from their saved pages "
                                         "(no network; the prior values are kept as a version)")
    x.add_argument("--profile", required=True, help="stored profile name (its current rules) or a profile JSON file")
    x.add_argument("--dry-run", action="store_true", help="only say how many articles would change")
    x.set_defaults(func=cmd_reextract, needs_db=True)


def fetch(url: str) -> tuple[bytes, str]:
    """GET an HTML page as the crawler would (services.pages); (body, content type)."""
    from ..services.pages import PageError, fetch_page

    try:
        body, ctype, _ = fetch_page(url)
    except PageError as exc:
        raise CliError(str(exc)) from None
    return body, ctype


def cmd_extract(args) -> int:
    from ..core.extraction.extract import extract

    profile = profile_argument(args.profile, args.store)
    source = args.source
    scheme = re.match(r"([a-z][a-z0-9+.-]*)://", source, re.IGNORECASE)
    if scheme and scheme.group(1).lower() not in ("http", "https"):
        raise CliError(f"{source}: extract fetches http:// and https:// pages, or reads a local file by its path")
    if args.url and not args.url.lower().startswith(("http://", "https://")):
        raise CliError(f"--url {args.url!r}: give the page's http:// or https:// address (links are made absolute from it)")
    if source.lower().startswith(("http://", "https://")):
        html, ctype = fetch(source)
        url = source
    else:
        path = Path(source)
        html, ctype = read_file(path, MAX_PAGE_BYTES, "page"), None
        url = args.url or path.resolve().as_uri()
    article = extract(html, url, profile, content_type=ctype)
    print(json.dumps(article.to_dict(), ensure_ascii=False, indent=2))
    if not article.ok:
        print("extraction failed: " + "; ".join(article.errors), file=sys.stderr)
        return 1
    return 0


def cmd_reextract(args) -> int:
    from ..services.crawl import ClassifierLoader
    from ..services.reextract import apply_reextract, plan_reextract

    store = args.store
    profile = profile_argument(args.profile, store)
    plan = plan_reextract(store, profile)
    print(plan.summary(), flush=True)
    if args.dry_run or not plan.count:
        return 0
    try:
        model = ClassifierLoader(store.root)()
    except Exception as exc:  # an unusable model: the topics stay as they are, and the user is told
        print(f"the topic model cannot be used ({type(exc).__name__}: {exc}); topics stay as they are", file=sys.stderr)
        model = None
    version = store.latest_version_number(profile.name)
    done = apply_reextract(store, profile, plan, classifier=model,
                           reason=f"profile {profile.name} version {version}" if version else profile.name)
    print(f"re-extracted {done:,} article(s); their earlier values are kept as versions")
    return 0
