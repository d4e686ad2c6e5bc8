"""A profile's self-test: extract a sample page and compare with the expected fields."""

from __future__ import annotations

from dataclasses import dataclass

from ..extraction.extract import extract
from ..profile.profile import FIELDS, Profile
from ..text.text import normalize_space


@dataclass(frozen=True)
class FieldCheck:
    field: str
    status: str  # ok | empty | error | mismatch | suspect (fails its content profile) | fallback
    detail: str = ""


def check_page(profile: Profile, html, url: str) -> list[FieldCheck]:
    article = extract(html, url, profile)
    expect = profile.self_test.expect if profile.self_test else {}
    errors = {e.split(":", 1)[0]: e.split(":", 1)[1].strip() for e in article.errors}
    checks = []
    for name in FIELDS:
        if name not in profile.fields and name not in expect:
            continue
        value = article.value(name)
        if name in errors and not value:
            checks.append(FieldCheck(name, "error", errors[name]))
        elif not value:
            checks.append(FieldCheck(name, "empty", "the rule matched nothing"))
        elif name in expect and expect[name] not in ("required", "") and normalize_space(str(expect[name])) != normalize_space(value):
            checks.append(FieldCheck(name, "mismatch", f"expected {expect[name]!r}, got {value[:80]!r}"))
        elif any(f.startswith(f"{name}:") for f in article.fallbacks):
            checks.append(FieldCheck(name, "fallback", "no rule gave a plausible value; the main-text extractor filled it"))
        elif article.checks.get(name):
            checks.append(FieldCheck(name, "suspect", "fails verification: " + "; ".join(article.checks[name])))
        else:
            checks.append(FieldCheck(name, "ok", value[:80].replace("\n", " ")))
    return checks
