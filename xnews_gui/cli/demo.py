"""`demo-site`: the bundled offline demo news site on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from .common import CliError, port_number


def register(sub) -> None:
    x = sub.add_parser("demo-site", help="serve the bundled offline demo news site on 127.0.0.1")
    x.add_argument("--port", type=port_number, default=8765, help="port on 127.0.0.1 (default 8765; 0 = any free)")
    x.add_argument("--dump", metavar="DIR", help="write every page to DIR instead of serving")
    x.set_defaults(func=cmd_demo_site, needs_db=False)


def cmd_demo_site(args) -> int:
    from ..demo import DemoServer, DemoSite
    from ..demo.site import dump

    if args.dump:
        if Path(args.dump).exists() and not Path(args.dump).is_dir():
            raise CliError(f"{args.dump} exists and is not a folder: --dump writes a folder of pages")
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
