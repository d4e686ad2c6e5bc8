"""The command line's entry point: the parser, the data folder and the store, errors as one line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import __version__
from ..core.profile.profile import ProfileError
from ..core.profile.rules import RuleError
from ..errors import describe_database_error, describe_os_error
from ..paths import DataDirError, data_dir, ensure_writable
from . import articles, classify, cookies, crawl, demo, extract, models, profiles, proxies, scale, watch
from .common import CliError

COMMAND_GROUPS = [profiles, extract, articles, watch, demo, crawl, cookies, proxies, classify, models, scale]  # in the order --help lists them


class _Parser(argparse.ArgumentParser):
    """argparse whose mistakes read like the commands' own errors: one line, exit code 2."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="xnews",
        description="XNews: build site profiles by clicking, crawl, classify and read news offline. "
        "With no command, the desktop app opens.",
    )
    parser.add_argument("--data-dir", help="data folder (default: $XNEWS_HOME or the per-user data folder)")
    parser.add_argument("--version", action="version", version=f"xnews {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command (or the app) and return its exit code; the process goes on (tests call it)."""
    return _command(build_parser().parse_args(argv))


def program() -> int:
    """The process: ``python main.py ...`` and the ``xnews`` script. The command owns the process:
    one whose work is all written and closed when it returns (``crawl``) ends it at once
    (``services.exit_now``)."""
    args = build_parser().parse_args()
    args.owns_process = True
    code = _command(args)
    if getattr(args, "exit_now", False):
        from ..services.exit_now import exit_now

        exit_now(code)
    return code


def _command(args: argparse.Namespace) -> int:
    args.store = None
    try:
        args.data_dir = data_dir(args.data_dir)
        if args.command is None:
            ensure_writable(args.data_dir)
            from ..ui.app import run  # the app itself (crawl --render-pages also starts a Qt render pool)

            return run(args.data_dir)
        if getattr(args, "needs_db", False):
            args.store = open_store(args.data_dir)
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `xnews search ... | head`: the reader left, nothing to report
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CliError, DataDirError, ProfileError, RuleError, OSError, ValueError, OverflowError) as exc:
        print(f"error: {_describe(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the store's errors and anything unforeseen: one clear line, no traceback
        from ..store import StoreError

        message = str(exc) if isinstance(exc, StoreError) else describe_database_error(exc)
        if message:
            print(f"error: {message}", file=sys.stderr)
            return 2
        raise
    finally:
        if args.store is not None:
            args.store.close()


def _describe(exc: Exception) -> str:
    return describe_os_error(exc) if isinstance(exc, OSError) else str(exc)


def open_store(root: Path):
    """The data folder's store, with the bundled profiles seeded and killed runs marked interrupted."""
    from ..bundled import seed_bundled_profiles
    from ..store import Store

    ensure_writable(root)
    store = Store.open(root)
    seed_bundled_profiles(store)
    store.mark_interrupted_runs()
    return store
