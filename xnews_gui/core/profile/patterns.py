"""Regular expressions that come from profiles, run with a time limit.

Profiles are shared files, so their patterns (``regex`` field rules, ``post``,
link ``allow``/``deny``, ``topics``) are untrusted: a pattern such as
``(a+)+$`` backtracks for ever on a long page. Two guards:

* at validation, the well-known catastrophic shape - a repeat nested inside an
  unbounded repeat, like ``(a+)+`` or ``(\\w*\\s?)*`` - is refused with a clear
  message (``PatternError``);
* at run time every search goes through the ``regex`` module with a ``timeout``,
  so a pattern that slips past the shape check (overlapping alternatives such
  as ``(a|aa)+$``) gives up after ``TIME_LIMIT_S`` with ``PatternTimeout``.

The syntax is Python's ``re`` (what the README documents); ``regex`` runs it.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

import regex

try:  # Python 3.11+
    from re import _constants as _sre_c, _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

TIME_LIMIT_S = 0.5  # per search over one page or URL; a sane pattern needs milliseconds
MAX_PATTERN_CHARS = 2000
_BIG_REPEAT = 10  # an outer repeat allowing more than this many turns counts as unbounded


class PatternError(ValueError):
    """A pattern that is refused; the message says why."""


class PatternTimeout(PatternError):
    """A search that ran past its time limit."""


class SafePattern:
    """A compiled profile pattern whose searches stop after ``TIME_LIMIT_S``."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self._compiled = regex.compile(pattern, flags | regex.VERSION0)

    @property
    def groups(self) -> int:
        return self._compiled.groups

    def search(self, text: str):
        try:
            return self._compiled.search(text, timeout=TIME_LIMIT_S)
        except TimeoutError:
            raise self._timeout(len(text)) from None

    def finditer(self, text: str) -> list:
        """All matches, as a list (the time limit covers the whole scan)."""
        try:
            return list(self._compiled.finditer(text, timeout=TIME_LIMIT_S))
        except TimeoutError:
            raise self._timeout(len(text)) from None

    def _timeout(self, size: int) -> PatternTimeout:
        return PatternTimeout(
            f"regular expression {self.pattern!r} gave up after {TIME_LIMIT_S:g} s on {size:,} characters "
            "(it backtracks too much: simplify it)"
        )

    def __repr__(self) -> str:
        return f"SafePattern({self.pattern!r})"


def check_pattern(pattern: str, flags: int = 0) -> None:
    """Raise ``PatternError`` when ``pattern`` is invalid, too long or of a catastrophic shape."""
    if not isinstance(pattern, str):
        raise PatternError(f"a regular expression must be a string, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"regular expression of {len(pattern):,} characters (at most {MAX_PATTERN_CHARS:,})")
    try:
        with warnings.catch_warnings():  # "possible nested set" and the like: the pattern is judged below
            warnings.simplefilter("ignore")
            tree = _sre_parse.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        raise PatternError(f"invalid regular expression {pattern!r}: {exc}") from None
    nested = _nested_repeat(tree)
    if nested:
        raise PatternError(
            f"regular expression {pattern!r} nests a repeat inside a repeat ({nested}); "
            "it can take forever on some pages - rewrite it without the nesting"
        )
    try:
        regex.compile(pattern, flags | regex.VERSION0)
    except (regex.error, ValueError, OverflowError) as exc:
        raise PatternError(f"invalid regular expression {pattern!r}: {exc}") from None


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, flags: int = 0) -> SafePattern:
    """A checked, compiled, time-limited pattern (cached)."""
    check_pattern(pattern, flags)
    return SafePattern(pattern, flags)


def safe_search(pattern: str, text: str, flags: int = 0):
    return compile_pattern(pattern, flags).search(text)


# --- the shape check --------------------------------------------------------------------------

_REPEATS = {_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT}


def _nested_repeat(tree) -> str:
    """A description of the first loose repeat directly inside an unbounded repeat, or ''.

    "Directly" means that everything else in the outer repeat's body may match
    nothing, so the text can be split between the turns in exponentially many
    ways: ``(a+)+``, ``(\\w*\\s?)*``. ``(\\d{1,2}/)+`` is fine: the ``/`` fixes the split.
    """
    for op, av in tree:
        if op in _REPEATS:
            lo, hi, body = av
            if hi == _sre_c.MAXREPEAT or hi > _BIG_REPEAT:
                inner = _loose(body)
                if inner:
                    return f"{inner} inside {_quantifier(lo, hi)}"
            found = _nested_repeat(body)
        else:
            found = "".join(_nested_repeat(sub) for sub in _children(op, av))
        if found:
            return found
    return ""


def _loose(seq) -> str:
    """The variable repeat that ``seq`` amounts to once its optional parts are set aside, or ''."""
    items = list(seq)
    for i, (op, av) in enumerate(items):
        others = items[:i] + items[i + 1:]
        if not all(_nullable(o) for o in others):
            continue
        if op in _REPEATS:
            lo, hi, body = av
            if lo != hi and hi > 1:
                return _quantifier(lo, hi)
            found = _loose(body)
        elif op == _sre_c.SUBPATTERN:
            found = _loose(av[-1])
        elif op == _sre_c.BRANCH:
            found = "".join(_loose(b) for b in av[1])
        else:
            found = ""
        if found:
            return found
    return ""


def _nullable(item) -> bool:
    """True when this node can match the empty string."""
    op, av = item
    if op in _REPEATS:
        return av[0] == 0 or all(_nullable(x) for x in av[2])
    if op == _sre_c.SUBPATTERN:
        return all(_nullable(x) for x in av[-1])
    if op == _sre_c.BRANCH:
        return any(all(_nullable(x) for x in b) for b in av[1])
    return op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT)


def _children(op, av) -> list:
    """Sub-patterns of a node, whatever its kind (groups, branches, look-arounds)."""
    if op == _sre_c.SUBPATTERN:
        return [av[-1]]
    if op == _sre_c.BRANCH:
        return list(av[1])
    if op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
        return [av[1]]
    if op == _sre_c.GROUPREF_EXISTS:
        return [b for b in av[1:] if b is not None]
    if op == getattr(_sre_c, "ATOMIC_GROUP", None):
        return []  # an atomic group never backtracks into itself
    return []


def _quantifier(lo: int, hi: int) -> str:
    if hi == _sre_c.MAXREPEAT:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    return f"{{{lo},{hi}}}"
