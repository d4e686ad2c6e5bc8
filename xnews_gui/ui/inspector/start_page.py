"""The inspector's start page: what to do first, the demo site, the stored profiles.

It is local HTML (resources/start) shown with ``setHtml``: no network. Its links use the
``xnews-start:`` scheme, which never loads anything: the browser page turns a click on one
into an action (``parse_action``) for the Sites tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import parse_qs, quote, urlsplit

from ...paths import RESOURCES

SCHEME = "xnews-start"
START_URL = f"{SCHEME}://home/"
TEMPLATE = RESOURCES / "start" / "start.html"
_MARK = "<!--PROFILES-->"


@dataclass(frozen=True)
class ProfileEntry:
    name: str
    url: str  # the first start URL, "" when none
    fields: int
    note: str = ""  # e.g. the last crawl's degraded fields ("Last crawl (...): body degraded on 7 of ...")


def render(profiles: list[ProfileEntry]) -> str:
    html = TEMPLATE.read_text(encoding="utf-8")
    return html.replace(_MARK, _profiles_table(profiles))


def _profiles_table(profiles: list[ProfileEntry]) -> str:
    if not profiles:
        return '<p class="none">None yet: the first one you save appears here.</p>'
    rows = []
    for p in profiles:
        link = f"{SCHEME}://profile/?name={quote(p.name, safe='')}"
        note = f'<br><span class="warn" style="color:#b9770e">\u26a0 {escape(p.note)}</span>' if p.note else ""
        rows.append(f'<tr><td><a href="{escape(link)}">{escape(p.name)}</a></td>'
                    f'<td class="url">{escape(p.url) or "no start address"}{note}</td>'
                    f'<td class="n">{p.fields} field{"s" if p.fields != 1 else ""}</td></tr>')
    return ("<table><thead><tr><th>Profile (click to open)</th><th>Starts at</th><th></th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def parse_action(url: str) -> tuple[str, str] | None:
    """``xnews-start://demo/`` -> ("demo", ""); ``xnews-start://profile/?name=x`` -> ("profile", "x")."""
    parts = urlsplit(url)
    if parts.scheme != SCHEME:
        return None
    if parts.netloc == "demo":
        return "demo", ""
    if parts.netloc == "profile":
        name = parse_qs(parts.query).get("name", [""])[0]
        return ("profile", name) if name else None
    return None


def is_start_url(url: str) -> bool:
    return url.startswith(f"{SCHEME}:")
