"""Partial PageRank over the part of the web graph seen so far.

Nodes are the fetched pages plus the URLs still queued (which have no known
out-links, so they are dangling: their rank is spread evenly, as usual).
"""

from __future__ import annotations


def pagerank(outlinks: dict[str, set[str]], nodes: set[str] | None = None, damping: float = 0.85,
             iterations: int = 50, tolerance: float = 1e-8) -> dict[str, float]:
    """Power iteration; ``outlinks`` maps a page to the pages it links to."""
    all_nodes = set(nodes or ())
    all_nodes.update(outlinks)
    for targets in outlinks.values():
        all_nodes.update(targets)
    n = len(all_nodes)
    if not n:
        return {}
    inbound: dict[str, list[tuple[str, int]]] = {v: [] for v in all_nodes}
    for u, targets in outlinks.items():
        for v in targets:
            inbound[v].append((u, len(targets)))
    dangling = [v for v in all_nodes if not outlinks.get(v)]
    rank = dict.fromkeys(all_nodes, 1.0 / n)
    base = (1.0 - damping) / n
    for _ in range(iterations):
        spread = damping * sum(rank[v] for v in dangling) / n
        new = {v: base + spread + damping * sum(rank[u] / deg for u, deg in inbound[v]) for v in all_nodes}
        delta = sum(abs(new[v] - rank[v]) for v in all_nodes)
        rank = new
        if delta < tolerance:
            break
    return rank
