"""``import-items``: JSON lines written by Scrapy workers -> articles in the desktop store (the desktop
side of the cluster: it lives with the store, not among the worker modules of ``scale``).

Each line goes through the crawl's own sink (``StoreSink``), so it gets what a desktop crawl
gives: one article per canonical URL (and per text), full-text search, topic and section. The
file is outside input: every line is checked, the body HTML is sanitised again, a bad line is
reported and skipped, the good ones are stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..core.extraction.extract import Article, html_to_text
from ..core.profile.profile import is_profile_name
from ..core.extraction.sanitize import sanitize_html
from ..core.text.urls import UrlError, absolute, canonical, is_allowed_scheme
from .sink import StoreSink

MAX_LINE = 20 * 1024 * 1024
BATCH = 200
# characters each text field may hold (a line over one is refused, never cut in silence)
TEXT_FIELDS = {"title": 2_000, "summary": 20_000, "image": 2_048, "body_html": 8_000_000, "body_text": 4_000_000,
               "author": 1_000, "date": 200}


class ImportError_(RuntimeError):  # noqa: N801 - not the builtin
    pass


@dataclass
class ImportReport:
    created: int = 0
    duplicates: int = 0
    problems: list = field(default_factory=list)  # "file:line: reason"


def import_files(files: list[Path], store, default_profile: str | None = None, on_watch=None) -> ImportReport:
    """``on_watch(hits)``: after each stored batch, its new articles that matched watches (as in a crawl)."""
    for path in files:
        if path.is_dir():
            raise ImportError_(f"{path} is a folder: give the JSON-lines files in it (e.g. {path / '*.jsonl'})")
        if not path.is_file():
            raise ImportError_(f"file not found: {path}" if not path.exists() else f"{path} is not a regular file")
    if default_profile is not None and not is_profile_name(default_profile):
        raise ImportError_(f"{default_profile!r} is not a profile name")
    report = ImportReport()
    sinks: dict[str, StoreSink] = {}
    pending: dict[str, list] = {}
    try:
        for path in files:
            for where, row in _rows(path, default_profile, report):
                name = row[0]
                pending.setdefault(name, []).append((where, row[1:]))
                if len(pending[name]) >= BATCH:
                    store_items(sinks, store, name, pending.pop(name), report, on_watch)
        for name, rows in pending.items():
            store_items(sinks, store, name, rows, report, on_watch)
    finally:
        for sink in sinks.values():
            sink.flush()
    return report


def _rows(path: Path, default_profile: str | None, report: ImportReport):
    with path.open("rb") as handle:
        for number, raw in enumerate(_lines(handle), 1):
            where = f"{path.name}:{number}"
            if raw is None:
                report.problems.append(f"{where}: line longer than {MAX_LINE // (1024 * 1024)} MB")
                continue
            if not raw.strip():
                continue
            try:
                yield where, parse_item(raw, default_profile)
            except ValueError as exc:
                report.problems.append(f"{where}: {exc}")
            except Exception as exc:  # noqa: BLE001 - a line no check foresaw: skipped and said, the others stored
                report.problems.append(f"{where}: cannot be read ({exc.__class__.__name__})")


def _lines(handle):
    """Lines of a binary file, None for one longer than MAX_LINE (skipped without being held)."""
    while True:
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # drop the rest of the long line
                rest = handle.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def parse_item(raw: bytes, default_profile: str | None) -> tuple:
    """(profile, article, topic, confidence, section) of one worker item (a JSON line); ValueError
    with the reason for anything that is not a good item."""
    try:
        item = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text (a JSON-lines file from a worker is)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON line ({exc.msg} at column {exc.colno})") from None
    except RecursionError:  # "[[[[..." a hundred thousand deep: one bad line, not the end of the import
        raise ValueError("not a JSON line (nested too deeply)") from None
    if not isinstance(item, dict):
        raise ValueError("not a JSON object")
    url = item.get("url")
    if not isinstance(url, str):
        raise ValueError("no url")
    try:
        url = canonical(url)
    except UrlError as exc:
        raise ValueError(f"bad url: {exc}") from None
    values = {}
    for name, cap in TEXT_FIELDS.items():
        value = item.get(name) or ""
        if not isinstance(value, str):
            raise ValueError(f"{name} is not text")
        if len(value) > cap:
            raise ValueError(f"{name} is {len(value):,} characters long (at most {cap:,})")
        if "\x00" in value:  # a worker's extraction never writes one: the line was not made by XNews
            raise ValueError(f"{name} holds a NUL character (\\x00)")
        values[name] = value
    if not values["title"].strip():
        raise ValueError("no title")
    if values["image"]:
        values["image"] = absolute(url, values["image"])
        if not is_allowed_scheme(values["image"]):
            raise ValueError(f"image {values['image'][:80]!r} is not an http(s) URL")
    profile = item.get("profile") or default_profile
    if not isinstance(profile, str) or not is_profile_name(profile):
        raise ValueError("no profile name (give --profile)")
    topic, section, confidence = item.get("topic"), item.get("section"), item.get("confidence")
    if topic is not None and not isinstance(topic, str) or section is not None and not isinstance(section, str):
        raise ValueError("topic and section must be text")
    if confidence is not None and (not isinstance(confidence, (int, float)) or isinstance(confidence, bool)
                                   or not 0 <= confidence <= 1):  # a 400-digit integer, 1e999: no probability
        raise ValueError("confidence is not a number from 0 to 1")
    body_html = sanitize_html(values["body_html"], url)  # outside input: made safe again
    body_text = values["body_text"] or html_to_text(body_html)
    listed = item.get("images") if isinstance(item.get("images"), list) else []
    images = [u for u in (absolute(url, u) for u in listed[:200] if isinstance(u, str) and len(u) <= 2_048)
              if is_allowed_scheme(u)]  # as a crawl keeps them: http(s) only
    article = Article(url=url, title=values["title"], summary=values["summary"], image=values["image"],
                      body_html=body_html, body_text=body_text, author=values["author"], date=values["date"],
                      images=images)
    return profile, article, topic or None, float(confidence) if confidence is not None else None, section or None


def store_items(sinks: dict, store, profile: str, rows: list, report: ImportReport, on_watch=None) -> list:
    """Items of one profile, [(where, (article, topic, confidence, section))], in one transaction
    (``sinks``: the StoreSink of each profile, made here when missing); the report counts them.
    Returns, per item, (id, created) or the exception storing it raised."""
    sink = sinks.get(profile)
    if sink is None:
        sink = sinks[profile] = StoreSink(store, profile, on_watch=on_watch)
    outcomes = sink.write_batch([row for _, row in rows])  # one transaction, as a crawl batch
    for (where, _), outcome in zip(rows, outcomes):
        if isinstance(outcome, Exception):
            report.problems.append(f"{where}: not stored ({outcome})")
        elif outcome[1]:
            report.created += 1
        else:
            report.duplicates += 1
    return outcomes
