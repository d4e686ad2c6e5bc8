"""A small news site a newcomer has never profiled: "The Harbour Ledger", generated here, served from 127.0.0.1.

Not the demo site: another template (cards in a feed, a sections menu as an id'd list, "Older stories"
pagination, stories under /story/), six sections of 50 stories, 20 per list page (three pages a section),
the latest 12 on the front page. Every page is made by code; no publisher's HTML is copied.

    with LedgerSite() as site:
        site.url            # http://127.0.0.1:PORT/
        site.stories        # every story (the site's total)
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .served import ServedInThread

SECTIONS = ("harbour", "council", "markets", "schools", "weather", "sport")
PER_SECTION = 50
PER_PAGE = 20
FRONT = 12
_WORDS = ("tide ferry quay council budget vote market price school term storm rain wind match goal season "
          "harbour pier crane cargo fishing fleet road bridge library museum park festival mayor report "
          "survey plan funding repair delay record crowd league final training coach weekend forecast").split()


@dataclass(frozen=True)
class Story:
    id: int
    section: str
    title: str
    byline: str
    paragraphs: tuple

    @property
    def path(self) -> str:
        return f"/story/{self.id}-{self.title.lower().replace(' ', '-')}.html"


def make_stories(seed: int = 7) -> list[Story]:
    rnd = random.Random(seed)
    stories = []
    n = 5000
    for section in SECTIONS:
        for _ in range(PER_SECTION):
            n += 1
            title = " ".join(rnd.choice(_WORDS).capitalize() if i == 0 else rnd.choice(_WORDS) for i in range(6))
            paragraphs = tuple(" ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(25, 45))).capitalize() + "."
                               for _ in range(rnd.randint(3, 6)))
            stories.append(Story(n, section, f"{title} {n}", f"By {rnd.choice(('Ana', 'Ben', 'Chi', 'Dev'))} "
                                 f"{rnd.choice(('Reyes', 'Okafor', 'Lind', 'Tran'))}", paragraphs))
    return stories


_STYLE = """
body { font-family: Georgia, serif; margin: 0; background: #faf7f0; color: #222; }
.masthead { background: #0b3954; color: #fff; padding: 14px 24px; }
.masthead .brand { font-size: 28px; font-weight: bold; color: #fff; text-decoration: none; }
#sections { list-style: none; margin: 0; padding: 8px 24px; background: #087e8b; }
#sections li { display: inline-block; margin-right: 18px; }
#sections a { color: #fff; text-decoration: none; font-family: sans-serif; }
.feed { padding: 12px 24px; display: grid; grid-template-columns: repeat(2, 1fr); gap: 12px; }
.card { background: #fff; border: 1px solid #ddd; padding: 10px 14px; }
.card .kicker { font: 12px sans-serif; color: #888; text-transform: uppercase; }
.card a.card-link { font-size: 18px; color: #0b3954; text-decoration: none; }
.pager { padding: 12px 24px; font-family: sans-serif; }
.pager a { margin-right: 16px; }
.story { max-width: 760px; padding: 16px 24px; background: #fff; margin: 12px 24px; }
.story-headline { font-size: 30px; margin: 4px 0 8px; }
.byline { font: 13px sans-serif; color: #666; }
.story-text { padding-top: 6px; }
.story-text p { line-height: 1.5; margin: 18px 0; }
.promo { background: #ffe8a3; padding: 6px; font: 12px sans-serif; }
.foot { padding: 16px 24px; font: 12px sans-serif; color: #777; }
"""


def _page(title: str, main: str) -> str:
    menu = "".join(f'<li><a href="/s/{s}/">{s.capitalize()}</a></li>' for s in SECTIONS)
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)} | The Harbour Ledger"
            f"</title><style>{_STYLE}</style></head><body>"
            f"<div class='masthead'><a class='brand' href='/'>The Harbour Ledger</a></div>"
            f"<ul id='sections'>{menu}</ul>{main}"
            f"<div class='foot'>The Harbour Ledger is a made-up paper for tests. <a href='/about/'>About</a></div>"
            f"</body></html>")


def _cards(stories) -> str:
    return "<div class='feed'>" + "".join(
        f"<div class='card'><div class='kicker'>{s.section}</div>"
        f"<a class='card-link' href='{s.path}'>{escape(s.title)}</a></div>" for s in stories) + "</div>"


class LedgerSite(ServedInThread):
    def __init__(self) -> None:
        self.stories = make_stories()
        self.by_path = {s.path: s for s in self.stories}
        self.requests: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                site.requests.append(self.path)
                status, body = site.page(self.path.split("?", 1)[0])
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="ledger-site", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def page(self, path: str) -> tuple[int, str]:
        if path == "/":
            latest = sorted(self.stories, key=lambda s: -s.id)[:FRONT]
            return 200, _page("Front page", "<h1 style='padding:0 24px'>Latest</h1>" + _cards(latest))
        if path.startswith("/s/"):
            parts = [p for p in path.split("/") if p]
            section = parts[1] if len(parts) > 1 else ""
            page = int(parts[3]) if len(parts) == 4 and parts[2] == "page" and parts[3].isdigit() else 1
            items = [s for s in self.stories if s.section == section]
            chunk = items[(page - 1) * PER_PAGE: page * PER_PAGE]
            if section not in SECTIONS or not chunk:
                return 404, _page("Not found", "<p>Not found</p>")
            pager = "<div class='pager'>"
            if page > 1:
                pager += f"<a class='newer' href='/s/{section}/{'' if page == 2 else f'page/{page - 1}/'}'>Newer</a>"
            if page * PER_PAGE < len(items):
                pager += f"<a class='older' rel='next' href='/s/{section}/page/{page + 1}/'>Older stories</a>"
            pager += "</div>"
            return 200, _page(section.capitalize(), f"<h1 style='padding:0 24px'>{section.capitalize()}</h1>"
                              + _cards(chunk) + pager)
        story = self.by_path.get(path)
        if story is not None:
            paragraphs = [f"<p>{escape(p)}</p>" for p in story.paragraphs]
            paragraphs.insert(1, "<div class='promo'>Subscribe to the Ledger</div>")
            body = (f"<div class='story'><div class='kicker'>{story.section}</div>"
                    f"<h2 class='story-headline'>{escape(story.title)}</h2><span class='byline'>{story.byline}</span>"
                    f"<div class='story-text'>{''.join(paragraphs)}</div></div>")
            return 200, _page(story.title, body)
        if path == "/about/":
            return 200, _page("About", "<p style='padding:24px'>A test paper.</p>")
        return 404, _page("Not found", "<p>Not found</p>")
