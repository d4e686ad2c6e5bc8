"""What a field's values should look like, and whether recent pages still look like that.

At authoring, each field gets a ``ContentProfile`` learned from its values on the
clicked page and its siblings (length and word-count range, digit and
punctuation share, values per page, agreement with a metadata anchor - the
RAPTURE / DataProG idea). Every extracted value is checked against it; a
``Verifier`` keeps the last ``WINDOW`` results per field and calls a field
*degraded* when too many of them failed.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field

from ..text.dates import DATE_DOUBT

WINDOW = 30  # pages per field that decide whether it is degraded
DEGRADED_MIN = 5  # at least this many of the window's pages failed...
DEGRADED_SHARE = 0.15  # ...and more than this share of them (a few odd pages are not a redesign)
_WORD = re.compile(r"\w+", re.U)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def agreement(a: str, b: str) -> float:
    """How much two values say the same thing: token containment of the shorter in the longer (0..1)."""
    wa, wb = set(words(a)), set(words(b))
    if not wa or not wb:
        return 0.0
    small, big = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return len(small & big) / len(small)


def _shares(value: str) -> tuple[float, float]:
    n = max(1, len(value))
    digits = punct = 0
    for token in value.split():  # whitespace is neither; a word of letters only holds neither either
        if token.isalpha():
            continue
        digits += sum(map(str.isdigit, token))
        punct += len(token) - sum(map(str.isalnum, token))
    return digits / n, punct / n


@dataclass(frozen=True)
class ContentProfile:
    chars: tuple[int, int]
    words: tuple[int, int]
    digits: float = 1.0  # highest digit share accepted
    punct: float = 1.0  # highest punctuation share accepted
    per_page: int = 1
    anchor: str = ""  # "jsonld:headline" / "css:meta[...]": the value should agree with it where present

    @classmethod
    def learn(cls, values: list[str], field_name: str = "", anchor: str = "", per_page: int = 1) -> "ContentProfile":
        values = [v for v in values if v]
        if not values:
            return cls(chars=(1, 10**7), words=(0, 10**6), per_page=per_page, anchor=anchor)
        lengths = [len(v) for v in values]
        counts = [len(words(v)) for v in values]
        loose = 4.0 if field_name in ("body",) else 3.0
        digit = max(_shares(v)[0] for v in values)
        punct = max(_shares(v)[1] for v in values)
        return cls(
            chars=(max(1, int(min(lengths) / loose)), int(max(lengths) * loose) + 40),
            words=(int(min(counts) / loose), int(max(counts) * loose) + 8),
            digits=round(min(1.0, digit + 0.2), 3),
            punct=round(min(1.0, punct + 0.15), 3),
            per_page=per_page,
            anchor=anchor,
        )

    def problems(self, value: str, anchor_value: str = "", upper_bounds: bool = True) -> list[str]:
        """Why the value does not look like this field (empty list: it does). ``upper_bounds``: False leaves
        the highest length unchecked."""
        if not value:
            return ["empty"]
        out = []
        n, w = len(value), len(words(value))
        if n < self.chars[0] or (upper_bounds and n > self.chars[1]):
            out.append(f"{n} characters (expected {self.chars[0]}-{self.chars[1]})")
        if w < self.words[0] or (upper_bounds and w > self.words[1]):
            out.append(f"{w} words (expected {self.words[0]}-{self.words[1]})")
        digit, punct = _shares(value)
        if digit > self.digits:
            out.append(f"{digit:.0%} digits")
        if punct > self.punct:
            out.append(f"{punct:.0%} punctuation")
        if self.anchor and anchor_value and agreement(value, anchor_value) < 0.5:
            out.append(f"disagrees with the page's {self.anchor}")
        return out

    def to_dict(self) -> dict:
        out = {"chars": list(self.chars), "words": list(self.words), "digits": self.digits,
               "punct": self.punct, "per_page": self.per_page}
        if self.anchor:
            out["anchor"] = self.anchor
        return out

    @classmethod
    def from_dict(cls, data, where: str) -> "ContentProfile":
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object")
        unknown = set(data) - {"chars", "words", "digits", "punct", "per_page", "anchor"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        try:
            chars = _range(data.get("chars", [1, 10**7]))
            word_range = _range(data.get("words", [0, 10**6]))
            digits = _share(data.get("digits", 1.0))
            punct = _share(data.get("punct", 1.0))
            per_page = int(data.get("per_page", 1))
            if per_page < 0:
                raise ValueError("a negative count")
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{where}: chars/words are [min, max] whole numbers, digits/punct shares 0..1, "
                             "per_page a whole number 0 or more") from None
        anchor = data.get("anchor", "")
        if not isinstance(anchor, str):
            raise ValueError(f"{where}.anchor: expected a string")
        return cls(chars=chars, words=word_range, digits=digits, punct=punct, per_page=per_page, anchor=anchor)


def _share(value) -> float:
    share = float(value)
    if not 0.0 <= share <= 1.0:  # NaN too: every comparison with it is False, the check silently off
        raise ValueError("not a share")
    return share


def _range(value) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError("not a range")
    lo, hi = int(value[0]), int(value[1])
    if lo < 0 or hi < lo:
        raise ValueError("not a range")
    return lo, hi


@dataclass
class FieldHealth:
    """The last WINDOW verification results of one field."""

    recent: deque = field(default_factory=lambda: deque(maxlen=WINDOW))  # (url, problems)

    def add(self, url: str, problems: list[str]) -> None:
        self.recent.append((url, tuple(problems)))

    @property
    def failing(self) -> list[tuple[str, tuple]]:
        return [(u, p) for u, p in self.recent if p]

    @property
    def degraded(self) -> bool:
        bad = len(self.failing)
        return bad >= DEGRADED_MIN and bad > DEGRADED_SHARE * len(self.recent)


class Verifier:
    """Feeds on extracted articles (``Article.checks``); says which fields are degraded."""

    def __init__(self) -> None:
        self.fields: dict[str, FieldHealth] = {}

    def add(self, article) -> None:
        for name, problems in getattr(article, "checks", {}).items():
            problems = [p for p in problems if not p.startswith(DATE_DOUBT)]  # a site's way, no broken rule
            self.fields.setdefault(name, FieldHealth()).add(article.url, problems)

    def degraded(self) -> dict[str, list[str]]:
        """Degraded field -> the URLs that failed in its recent window."""
        return {name: [u for u, _ in h.failing] for name, h in self.fields.items() if h.degraded}

    def why(self) -> dict[str, str]:
        """Degraded field -> what its failing values most often have wrong ("covers 12% of the article's text")."""
        out = {}
        for name, health in self.fields.items():
            if not health.degraded:
                continue
            first = [p[0] for _, p in health.failing if p]
            kinds = Counter(re.sub(r"\d+", "N", p) for p in first)
            if kinds:
                common = kinds.most_common(1)[0][0]
                out[name] = next(p for p in first if re.sub(r"\d+", "N", p) == common)
        return out

    def summary(self) -> dict:
        return {name: {"checked": len(h.recent), "failed": len(h.failing), "degraded": h.degraded,
                       "failing_urls": [u for u, _ in h.failing][:10]}
                for name, h in self.fields.items()}
