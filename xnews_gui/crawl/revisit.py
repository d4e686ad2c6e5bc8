"""Adaptive revisit interval from a page's observed change rate.

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
