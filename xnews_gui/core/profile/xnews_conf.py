"""The legacy ``xnews.conf`` format of the original XNews, both ways.

Line 1 is the number of sources N, then N blocks of 8 lines:

    seed URL
    markers of article links      ~fragment~fragment~
    start of content              ~fragment~...
    end of content                ~fragment~...
    title                         ~start~end~   (pairs; a lone start ends at its tag's close)
    summary                       ~start~end~
    author                        ~start~end~
    (blank)

Markers are literal HTML fragments between ``~``. A link marker that looks like
a URL restricts article links to hrefs containing it; any other marker (e.g.
``class="link-topnews"``) selects anchors carrying it or lying inside an element
that carries it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .profile import CrawlSettings, LinkRule, Profile, ProfileError
from .rules import Rule
from .xpath_names import xpath_literal

BLOCK_LINES = 8


class ConfError(ValueError):
    """An xnews.conf that cannot be read; the message gives the line."""


def split_markers(line: str) -> list[str]:
    return [part for part in line.strip().split("~") if part.strip()]


def join_markers(parts) -> str:
    return "~" + "~".join(parts) + "~" if parts else ""


_ATTR = re.compile(r"""^\s*([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*(["'])(.*)\2\s*$""", re.S)
_OPEN_TAG = re.compile(r"^\s*<([A-Za-z][A-Za-z0-9]*)\b")


def _closing_for(start: str) -> str:
    m = _OPEN_TAG.match(start)
    return f"</{m.group(1)}>" if m else "<"


def _pair_rule(fragments: list[str], take: str = "text") -> Rule | None:
    if not fragments:
        return None
    if len(fragments) == 1:
        return Rule(kind="markers", start=(fragments[0],), end=(_closing_for(fragments[0]),), take=take)
    starts = tuple(fragments[0::2])
    ends = tuple(fragments[1::2]) or tuple(_closing_for(s) for s in starts)
    return Rule(kind="markers", start=starts, end=ends, take=take)


def _link_rule(markers: list[str]) -> LinkRule | None:
    urls = [m for m in markers if re.match(r"^(https?:)?//|^/", m.strip())]
    attrs = [m for m in markers if m not in urls]
    paths = []
    for marker in attrs:
        m = _ATTR.match(marker)
        if not m:
            raise ConfError(f"link marker {marker!r} is neither a URL nor an attribute like class=\"...\"")
        name, value = m.group(1), xpath_literal(m.group(3))
        paths.append(f"//a[@{name}={value}]")
        paths.append(f"//*[@{name}={value}]//a")
    allow = tuple(re.escape(u.strip()) for u in urls)
    if not paths and not allow:
        return None
    selector = " | ".join(paths) if paths else "//a[@href]"
    return LinkRule(kind="xpath", selector=selector, allow=allow)


def _name_for(seed: str, taken: set[str]) -> str:
    host = urlsplit(seed).hostname or "site"
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", host.removeprefix("www."))[:60] or "site"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def parse_conf(text: str) -> list[Profile]:
    """Profiles from the text of an xnews.conf."""
    if "\x00" in text[:8192]:
        raise ConfError("not an xnews.conf: the file holds binary data (NUL bytes), not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or not lines[0].strip():
        raise ConfError("line 1: expected the number of sources, found an empty line")
    try:
        count = int(lines[0].strip().lstrip("\ufeff"))
    except ValueError:
        raise ConfError(f"line 1: expected the number of sources, found {lines[0].strip()[:40]!r}") from None
    if count < 1:
        raise ConfError("line 1: the number of sources must be at least 1")
    needed = 1 + count * BLOCK_LINES - 1  # the last block's blank line may be missing
    if len(lines) < needed:
        raise ConfError(
            f"line 1 announces {count} source(s) ({count} blocks of {BLOCK_LINES} lines) but the file has only "
            f"{len(lines)} line(s)"
        )
    profiles, taken = [], set()
    for i in range(count):
        first = 1 + i * BLOCK_LINES
        block = (lines[first : first + BLOCK_LINES] + [""] * BLOCK_LINES)[:BLOCK_LINES]
        where = f"source {i + 1} (line {first + 1})"
        seed = block[0].strip().strip("~")
        if not re.match(r"^https?://", seed):
            raise ConfError(f"{where}: the seed must be an http(s) URL, found {seed[:60]!r}")
        if block[7].strip():
            raise ConfError(f"line {first + 8}: expected a blank line after source {i + 1}, found {block[7].strip()[:40]!r}")
        try:
            links = _link_rule(split_markers(block[1]))
            starts, ends = split_markers(block[2]), split_markers(block[3])
            fields = {}
            if starts:
                fields["body"] = Rule(kind="markers", start=tuple(starts), end=tuple(ends), take="html",
                                      required=True)
            for name, line in (("title", block[4]), ("summary", block[5]), ("author", block[6])):
                rule = _pair_rule(split_markers(line))
                if rule:
                    fields[name] = rule.with_(required=(name == "title"))
            host = urlsplit(seed).hostname or ""
            domain = host.removeprefix("www.")
            profile = Profile(
                name=_name_for(seed, taken), start_urls=(seed,), allowed_domains=(domain,) if domain else (),
                articles=links, fields=fields, crawl=CrawlSettings(),
                description=f"Imported from xnews.conf, source {i + 1}",
            )
            Profile.from_dict(profile.to_dict())  # validate like any profile
        except (ConfError, ProfileError, ValueError) as exc:
            raise ConfError(f"{where}: {exc}") from None
        profiles.append(profile)
    return profiles


def _rule_markers(rule: Rule | None) -> list[str] | None:
    if rule is None:
        return []
    if rule.kind != "markers":
        return None
    out = []
    for i, s in enumerate(rule.start):
        out.append(s)
        end = rule.end[i] if i < len(rule.end) else (rule.end[-1] if rule.end else "")
        if end:
            out.append(end)
    return out


def _link_markers(rule: LinkRule | None) -> list[str] | None:
    if rule is None:
        return []
    if rule.kind != "xpath":
        return None
    markers = []
    for m in re.finditer(r"""//a\[@([A-Za-z_:][-A-Za-z0-9_:.]*)=(?:'([^']*)'|"([^"]*)")\]""", rule.selector):
        value = m.group(2) if m.group(2) is not None else m.group(3)
        markers.append(f'{m.group(1)}="{value}"' if '"' not in value else f"{m.group(1)}='{value}'")
    markers += [re.sub(r"\\(.)", r"\1", a) for a in rule.allow]
    return markers


def to_conf(profiles) -> tuple[str, list[str]]:
    """xnews.conf text for the profiles that fit the format, and why others were skipped."""
    blocks, skipped = [], []
    for p in profiles:
        body = p.fields.get("body")
        parts = {name: _rule_markers(p.fields.get(name)) for name in ("title", "summary", "author")}
        links = _link_markers(p.articles)
        if body is None or body.kind != "markers" or links is None or any(v is None for v in parts.values()):
            skipped.append(f"{p.name}: uses css/xpath rules, which xnews.conf cannot express")
            continue
        blocks.append("\n".join([
            p.start_urls[0], join_markers(links), join_markers(list(body.start)), join_markers(list(body.end)),
            join_markers(parts["title"]), join_markers(parts["summary"]), join_markers(parts["author"]), "",
        ]))
    text = f"{len(blocks)}\n" + "\n".join(blocks) if blocks else ""
    return text, skipped
