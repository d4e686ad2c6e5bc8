"""The published entry point of rule induction: ``induce_profile({field: [(html, xpath)]}, siblings=[html],
name=..., start_url=...) -> Profile``.

Outside tools (the held-out layout check of issue 24, scripts of users) import it by this path; the work
is done in ``core.induction.selectors``. Keep this path stable."""

from .induction.selectors import induce_profile

__all__ = ["induce_profile"]
