"""The app's crawl process for a profile marked "render": ``python -m xnews_gui.ui.crawl_child_render``.

The same child as every other crawl (``services/crawl_child.py``: the same request on stdin, the
same events on stdout, the same commands), with the render pool living where the crawl lives: Qt
runs offscreen in this process's main thread and the crawl in another (``render_run``).
"""

from __future__ import annotations

import sys

MODULE = "xnews_gui.ui.crawl_child_render"
POOL_SIZE = 2  # offscreen pages rendering at once


def main() -> int:
    from ..services.crawl_child import main as child_main
    from .render_run import run_with_render_pool

    return child_main(runner=lambda make_handle: run_with_render_pool(POOL_SIZE, make_handle)[0])


if __name__ == "__main__":
    from ..services.exit_now import exit_now

    code = main()
    exit_now(code)
    sys.exit(code)
