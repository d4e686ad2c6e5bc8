"""A news site without one class or id, its stories split over sibling blocks: "The Valley Courier",
generated here, served from 127.0.0.1.

The layouts that fail in silence: every story's text stands in three sibling ``<div>`` blocks (two
paragraphs each) with an advertisement and a related-stories box between them, no hook anywhere; every
third story uses a second, older layout (the headline a ``<font size=5><b>``, the text in a table cell).
A front page, three sections of 12 stories (two list pages each, "Next page"), ``/sitemap.xml``.
Every page is made by code.

    with PlainSite() as site:
        site.url                 # http://127.0.0.1:PORT/  (images: a logo on every page, a photo in each story)
        site.stories             # every story; story.layout is 1 or 2
        site.page(path)          # (status, html) without a server
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .served import ServedInThread

NAME = "The Valley Courier"
_PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                     "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201"
                     "e221bc330000000049454e44ae426082")  # one grey pixel
SECTIONS = ("river", "farms", "towns")
PER_SECTION = 12
PER_PAGE = 6
_WORDS = ("river flood bank bridge farm harvest wheat barley price market town mayor council road school "
          "teacher pupil clinic doctor nurse train station bus fare storm rain frost sun orchard apple pear "
          "festival music choir league match goal season report survey plan budget repair delay record").split()


@dataclass(frozen=True)
class Story:
    id: int
    section: str
    title: str
    paragraphs: tuple  # six paragraphs

    @property
    def path(self) -> str:
        return f"/{self.section}/{self.id}.html"

    @property
    def layout(self) -> int:
        return 2 if self.id % 3 == 0 else 1

    @property
    def text(self) -> str:
        return " ".join(self.paragraphs)


def make_stories(seed: int = 11) -> list[Story]:
    rnd = random.Random(seed)
    out = []
    n = 100
    for section in SECTIONS:
        for _ in range(PER_SECTION):
            n += 1
            title = " ".join(rnd.choice(_WORDS) for _ in range(7)).capitalize() + f" {n}"
            paragraphs = tuple(" ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(28, 44))).capitalize() + "."
                               for _ in range(6))
            out.append(Story(n, section, title, paragraphs))
    return out


def _page(title: str, main: str, sidebar: str = "") -> str:
    menu = " | ".join(f"<a href='/{s}/'>{s.capitalize()}</a>" for s in SECTIONS)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)} - {NAME}</title></head>"
            f"<body style='font-family: Georgia, serif; margin: 0'>"
            f"<div style='background:#23395b;color:#fff;padding:10px 18px'><img src='/logo.png' width='24' height='24' "
            f"alt=''> <a href='/' style='color:#fff'>{NAME}</a>"
            f"<div>{menu}</div></div>"
            f"<div style='display:flex'><div style='flex:3;padding:8px 18px'>{main}</div>"
            f"<div style='flex:1;padding:8px;background:#eee'>{sidebar}</div></div>"
            f"<div style='padding:10px 18px;font-size:12px'>{NAME} is a made-up paper for tests.</div></body></html>")


def _related(story: Story, others) -> str:
    links = "".join(f"<li><a href='{o.path}'>{escape(o.title)}</a></li>" for o in others[:3] if o is not story)
    return f"<div style='border:1px solid #ccc;padding:4px'><b>Related</b><ul>{links}</ul></div>"


def story_page(story: Story, stories) -> str:
    p = [f"<p>{escape(x)}</p>" for x in story.paragraphs]
    others = [s for s in stories if s.section == story.section and s is not story]
    if story.layout == 1:
        ad = "<div style='background:#ffe;padding:6px'><span>Advertisement</span></div>"
        photo = f"<img src='/photos/{story.id}.png' width='320' height='120' alt='A photo of the story'>"
        main = (f"<h1>{escape(story.title)}</h1><div style='color:#777'>{story.section.capitalize()} desk</div>"
                f"<div>{photo}{''.join(p[:2])}</div>{ad}<div>{''.join(p[2:4])}</div>{_related(story, others)}"
                f"<div>{''.join(p[4:])}</div><div>Share: <a href='#'>mail</a></div>")
    else:
        main = (f"<table width='100%' border='0'><tr><td><font size='5'><b>{escape(story.title)}</b></font></td>"
                f"</tr><tr><td><font size='2'>{story.section.capitalize()} desk</font></td></tr>"
                f"<tr><td>{''.join(p)}</td></tr></table>")
    sidebar = "<b>Most read</b><ul>" + "".join(f"<li><a href='{o.path}'>{escape(o.title)}</a></li>"
                                               for o in stories[:4]) + "</ul>"
    return _page(story.title, main, sidebar)


def list_page(items, next_path: str, heading: str) -> str:
    links = "".join(f"<li><a href='{s.path}'>{escape(s.title)}</a></li>" for s in items)
    nav = f"<p><a href='{next_path}'>Next page</a></p>" if next_path else ""
    return _page(heading, f"<h2>{escape(heading)}</h2><ul>{links}</ul>{nav}")


class PlainSite(ServedInThread):
    def __init__(self) -> None:
        self.stories = make_stories()
        self.by_path = {s.path: s for s in self.stories}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                path = self.path.split("?", 1)[0]
                if path.endswith(".png"):
                    status, data, kind = 200, _PNG, "image/png"
                else:
                    status, body = site.page(path)
                    data, kind = body.encode("utf-8"), ("application/xml" if path.endswith(".xml")
                                                        else "text/html; charset=utf-8")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="plain-site", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def page(self, path: str) -> tuple[int, str]:
        if path == "/":
            latest = [s for s in self.stories if s.id % 4 == 1][:6]  # a few from each section
            return 200, list_page(latest, "", "Latest")
        if path == "/sitemap.xml":
            base = self.url.rstrip("/") if hasattr(self, "httpd") else ""
            urls = "".join(f"<url><loc>{base}{s.path}</loc></url>" for s in self.stories)
            return 200, ("<?xml version='1.0' encoding='UTF-8'?><urlset xmlns='http://www.sitemaps.org/schemas/"
                         f"sitemap/0.9'>{urls}</urlset>")
        parts = [p for p in path.split("/") if p]
        if parts and parts[0] in SECTIONS and (len(parts) == 1 or (len(parts) == 3 and parts[1] == "page")):
            section = parts[0]
            page = int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else 1
            items = [s for s in self.stories if s.section == section]
            chunk = items[(page - 1) * PER_PAGE: page * PER_PAGE]
            if not chunk:
                return 404, _page("Not found", "<p>Not found</p>")
            more = f"/{section}/page/{page + 1}/" if page * PER_PAGE < len(items) else ""
            return 200, list_page(chunk, more, section.capitalize())
        story = self.by_path.get(path)
        if story is not None:
            return 200, story_page(story, self.stories)
        return 404, _page("Not found", "<p>Not found</p>")
