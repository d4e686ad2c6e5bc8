"""Adaptive revisit intervals from a page's observed change rate.

Stored articles (``article_interval``): λ̂ = X / T, the changes seen over the time the article has
been watched, against the check frequency f = 1 / I of its current interval I: r = λ̂ / f. An
article that changed more often than it was checked (r > 1) is checked r times as often; one that
changes less often (or was never seen changing) waits longer, at most twice as long as last time.

The change rate λ of a list page is estimated with Cho & Garcia-Molina's
estimator for pages visited at (roughly) regular intervals: with n revisits of
mean interval I, X of which found the page changed,
    λ = -ln((n - X + 0.5) / (n + 0.5)) / I
(the 0.5 terms keep it finite when every visit saw a change). The next visit
comes after 1/λ, bounded by [min, max]; a page never seen changing waits twice
as long as last time (or as the mean interval so far, if longer).
"""

from __future__ import annotations

import math


def change_rate(revisits: int, changes: int, elapsed_s: float) -> float | None:
    """Changes per second, or None before the first revisit."""
    if revisits <= 0 or elapsed_s <= 0:
        return None
    changes = max(0, min(changes, revisits))
    mean_interval = elapsed_s / revisits
    return -math.log((revisits - changes + 0.5) / (revisits + 0.5)) / mean_interval


def next_interval(revisits: int, changes: int, elapsed_s: float, previous_s: float,
                  min_s: float, max_s: float) -> float:
    """Seconds until the next visit."""
    rate = change_rate(revisits, changes, elapsed_s)
    if rate is None:
        interval = min_s
    elif rate <= 0:
        interval = 2 * max(previous_s, min_s, elapsed_s / revisits)
    else:
        interval = 1.0 / rate
    return max(min_s, min(max_s, interval))


def article_interval(changes: int, watched_s: float, previous_s: float, min_s: float, max_s: float) -> float:
    """Seconds until an article's next revisit (see the module's note)."""
    previous_s = max(previous_s, min_s, 1.0)
    rate = changes / watched_s if watched_s > 0 and changes > 0 else 0.0  # λ̂, changes per second
    if rate <= 0:
        interval = 2 * previous_s
    else:
        r = rate * previous_s  # λ̂ / f
        interval = min(previous_s / r, 2 * previous_s)
    return max(min_s, min(max_s, interval))
