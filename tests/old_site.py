"""A 2009-style local news site, served from 127.0.0.1 with an access log: "Tin Tức Phố Núi".

Tables and ``<font>`` for layout, PHP-looking addresses (``index.php?cat=1``, ``tin.php?id=101``), no
robots.txt, no ETag or Last-Modified, a ``/sitemap.xml`` its CMS writes on every request with every
``<lastmod>`` set to that moment, and an RSS feed announced on the front page. A profile made in the
inspector on its front page and its first section starts at both. Every page is made by code here.

    with OldSite() as site:
        site.url                 # http://127.0.0.1:PORT/
        site.log                 # [(status, path)] of every request, in order
        site.revise(updated={101: "..."}, gone={102})   # the site later on: a corrected story, a removed one
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from xnews_gui.core.profile.profile import Profile

from .served import ServedInThread

SECTIONS = {1: "Tin trong tỉnh", 2: "Kinh tế"}
PER_SECTION = 7
_WORDS = ("đường nông thôn cà phê mùa mưa hội nghị tỉnh ủy giá tiêu nông dân lễ hội cồng chiêng trường học "
          "cầu treo thủy điện rừng phòng hộ chợ phiên bệnh viện huyện du lịch thác nước").split()
BASE = datetime(2009, 6, 1, 8, 0, tzinfo=timezone(timedelta(hours=7)))


def _story(n: int) -> tuple[str, list[str]]:
    words = [_WORDS[(n * 7 + i * 3) % len(_WORDS)] for i in range(8)]
    title = " ".join(words).capitalize() + f" (số {n})"
    paragraphs = [" ".join(_WORDS[(n + i * 5 + j) % len(_WORDS)] for j in range(40)).capitalize() + "."
                  for i in range(4)]
    return title, paragraphs


class OldSite(ServedInThread):
    def __init__(self) -> None:
        self.stories = {}  # id -> (section, title, paragraphs, published)
        for cat in SECTIONS:
            for k in range(PER_SECTION):
                n = 100 + (cat - 1) * PER_SECTION + k + 1
                title, paragraphs = _story(n)
                self.stories[n] = (cat, title, paragraphs, BASE + timedelta(hours=n))
        self.gone: set[int] = set()
        self.log: list[tuple[int, str]] = []
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                status, ctype, body = site.page(self.path)
                with site._lock:
                    site.log.append((status, self.path))
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def article_urls(self) -> set[str]:
        return {f"{self.url}tin.php?id={n}" for n in self.stories if n not in self.gone}

    def revise(self, updated: dict | None = None, gone=()) -> None:
        """The site later on: stories whose text changed (id -> a new first paragraph), stories removed (404)."""
        for n, note in (updated or {}).items():
            cat, title, paragraphs, published = self.stories[n]
            self.stories[n] = (cat, title + " (đã cập nhật)", [note, *paragraphs], published)
        self.gone |= set(gone)

    def take_log(self) -> list[tuple[int, str]]:
        with self._lock:
            log, self.log = self.log, []
        return log

    # --- pages -------------------------------------------------------------------------------
    def page(self, path: str) -> tuple[int, str, str]:
        html = "text/html; charset=utf-8"
        if path == "/":
            return 200, html, self._front()
        if path.startswith(("/index.php?cat=", "/?cat=")):  # index.php is the folder's index page
            cat = int(path.rsplit("=", 1)[1]) if path.rsplit("=", 1)[1].isdigit() else 0
            if cat in SECTIONS:
                return 200, html, self._section(cat)
        if path.startswith("/tin.php?id="):
            n = int(path.rsplit("=", 1)[1]) if path.rsplit("=", 1)[1].isdigit() else 0
            if n in self.stories and n not in self.gone:
                return 200, html, self._article(n)
        if path == "/sitemap.xml":
            return 200, "application/xml; charset=utf-8", self._sitemap()
        if path == "/rss.php":
            return 200, "application/rss+xml; charset=utf-8", self._rss()
        return 404, html, self._layout("Không tìm thấy", "<font color=red>Trang không tồn tại</font>")

    def _live(self, cat: int | None = None) -> list[int]:
        return sorted((n for n, s in self.stories.items() if n not in self.gone and cat in (None, s[0])), reverse=True)

    def _layout(self, title: str, content: str, head: str = "") -> str:
        menu = "".join(f'<td class="menu"><a href="/index.php?cat={c}"><b>{escape(name)}</b></a></td>'
                       for c, name in SECTIONS.items())
        return (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
                f"<title>{escape(title)} - Tin Tức Phố Núi</title>{head}</head>"
                '<body bgcolor="#ffffff"><table width="780" border="0" cellpadding="0" cellspacing="0" align="center">'
                '<tr><td><a href="/"><img src="/images/logo.gif" border="0"></a></td></tr>'
                f"<tr><td><table><tr>{menu}</tr></table></td></tr><tr><td>{content}</td></tr>"
                '<tr><td><font size="1">&copy; 2009 Tin Tức Phố Núi</font></td></tr></table></body></html>')

    def _row(self, n: int) -> str:
        return f'<tr><td><a class="tieude" href="/tin.php?id={n}">{escape(self.stories[n][1])}</a></td></tr>'

    def _front(self) -> str:
        rows = "".join(self._row(n) for n in self._live()[:5])
        head = '<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss.php">'
        return self._layout("Trang chủ", f"<table>{rows}</table>", head)

    def _section(self, cat: int) -> str:
        rows = "".join(self._row(n) for n in self._live(cat))
        return self._layout(SECTIONS[cat], f'<font size="4">{escape(SECTIONS[cat])}</font><table>{rows}</table>')

    def _article(self, n: int) -> str:
        _cat, title, paragraphs, published = self.stories[n]
        text = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
        return self._layout(title, f'<font class="tieude_chinh" size="5"><b>{escape(title)}</b></font>'
                                   f'<br><font size="1">{published:%d/%m/%Y %H:%M}</font>'
                                   f'<table><tr><td class="noidung">{text}</td></tr></table>')

    def _sitemap(self) -> str:
        now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()  # the CMS writes "now" everywhere
        rows = "".join(f"<url><loc>{self.url}tin.php?id={n}</loc><lastmod>{now}</lastmod></url>" for n in self._live())
        return ('<?xml version="1.0" encoding="UTF-8"?>'
                f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>')

    def _rss(self) -> str:
        items = "".join(f"<item><title>{escape(self.stories[n][1])}</title><link>{self.url}tin.php?id={n}</link>"
                        f"<pubDate>{format_datetime(self.stories[n][3])}</pubDate></item>" for n in self._live())
        return f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Phố Núi</title>{items}</channel></rss>'


def old_site_profile(site: OldSite, name: str = "phonui") -> Profile:
    """The profile a newcomer makes on it: started on the front page and the first section, sitemap and
    feeds read before the links."""
    return Profile.from_dict({
        "schema": 2, "name": name, "start_urls": [site.url, f"{site.url}index.php?cat=1"],
        "allowed_domains": ["127.0.0.1"], "discovery": ["sitemap", "feeds", "links"],
        "links": {"articles": {"kind": "css", "selector": "a.tieude", "allow": [r"tin\.php\?id=\d+$"]},
                  "lists": {"kind": "css", "selector": "td.menu a"}},
        "fields": {"title": {"kind": "css", "selector": "font.tieude_chinh", "take": "text", "required": True},
                   "body": {"kind": "css", "selector": "td.noidung", "take": "html", "required": True}},
        "crawl": {"strategy": "bfs", "delay_s": 0.0, "concurrency": 2, "max_depth": 2},
    })
