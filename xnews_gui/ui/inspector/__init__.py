"""The wrapper builder's inspector: embedded browser, picker, rule panel, live preview."""

from .inspector import Inspector

__all__ = ["Inspector"]
