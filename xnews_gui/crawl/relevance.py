"""Topic relevance of a text to the profile's keywords, and page importance.

Keyword relevance (used by best-first, importance and focused crawling) is the
share of the total positive keyword weight whose keywords occur in the text, in
[0, 1]; matching ignores case and Vietnamese diacritics so that a URL slug
(``giai-phong-mat-bang``) matches the keyword "giải phóng mặt bằng".
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def fold(text: str) -> str:
    """Lower-case, strip diacritics (đ -> d), collapse everything else to single spaces."""
    text = (text or "").replace("đ", "d").replace("Đ", "D")
    text = unicodedata.normalize("NFD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " " + _NON_WORD.sub(" ", text.lower()).strip() + " "


class KeywordRelevance:
    """relevance(text) -> [0, 1] for a {keyword: weight} map (negative weights subtract)."""

    def __init__(self, keywords: dict[str, float] | None):
        self.terms = [(fold(k), float(w)) for k, w in (keywords or {}).items() if fold(k).strip()]
        self.total = sum(w for _, w in self.terms if w > 0)

    def __bool__(self) -> bool:
        return self.total > 0

    def __call__(self, text: str, folded: bool = False) -> float:
        if not self.total:
            return 0.0
        text = text if folded else fold(text)
        score = sum(w for term, w in self.terms if term in text)
        return max(0.0, min(1.0, score / self.total))


DEFAULT_WEIGHTS = (0.4, 0.4, 0.2)


def importance(inlinks: float, link_relevance: float, depth: int,
               weights: tuple[float, float, float] = DEFAULT_WEIGHTS) -> float:
    """I(p) = x*IB(p) + y*IL(p) + z*ID(p), each term in [0, 1].

    IB: weighted in-links seen so far, saturating: 1 - 1/(1 + w) (no global
        maximum, so a score never changes because some other page got links);
    IL: relevance of the URL and anchor text to the topic keywords;
    ID: 1 / (1 + depth), so pages near the seeds come first.
    """
    x, y, z = weights
    ib = 1.0 - 1.0 / (1.0 + max(0.0, inlinks))
    return x * ib + y * link_relevance + z * (1.0 / (1.0 + max(0, depth)))
