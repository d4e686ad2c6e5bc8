"""The bundled demo site, served inside the app so a newcomer can crawl without a network."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from ..core.profile.profile import Profile
from ..demo import DemoServer
from . import icons

DEMO_PROFILE = "demo"
DEMO_PORT = 8765  # the port in profiles/demo.json; another free port when it is taken


class DemoSite:
    def __init__(self, store):
        self.store = store
        self.server: DemoServer | None = None

    @property
    def running(self) -> bool:
        return self.server is not None

    def start(self) -> str:
        if self.server is None:
            try:
                self.server = DemoServer(port=DEMO_PORT).start()
            except OSError:
                self.server = DemoServer(port=0).start()
        return self.server.url

    def profile(self) -> Profile | None:
        """The stored demo profile pointed at the running server (not saved: the port may change)."""
        profile = self.store.load_profile(DEMO_PROFILE)
        if profile is None:
            from ..bundled import bundled_profiles

            profile = next((p for _, p in bundled_profiles() if p.name == DEMO_PROFILE), None)
        if profile is None:
            return None
        return profile.with_(start_urls=(self.start(),))

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def demo_hint() -> tuple[QFrame, QPushButton]:
    """The Crawl tab's "New here?" box and its "Crawl the demo site" button (shown while the store is empty)."""
    hint = QFrame(objectName="hint")
    hint.setStyleSheet("#hint { background: palette(alternate-base); border: 1px solid palette(mid);"
                       " border-radius: 6px; }")
    text = QLabel("<b>New here?</b> XNews ships a small news site that runs inside the app, "
                  "so you can try everything offline: crawl it, then read the articles "
                  "in the <b>Articles</b> tab.")
    text.setWordWrap(True)
    button = QPushButton(icons.named("demo"), "Crawl the demo site")
    row = QHBoxLayout(hint)
    row.addWidget(text, 1)
    row.addWidget(button)
    return hint, button
