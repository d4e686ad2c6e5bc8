"""Why Save refuses a profile: what a crawl needs that it lacks, or what the screen shows that it did not take."""

from __future__ import annotations

from ..core.profile.profile import Profile


def why_not_saved(profile: Profile, inspector) -> str:
    """The message Save shows instead of saving, "" when the profile may be saved."""
    missing = [f for f in ("title", "body") if f not in profile.fields]
    if missing:
        return (f"Not saved: a profile needs a {' and a '.join(m.capitalize() for m in missing)} rule. "
                "Open an article page and pick them.")
    unapplied = inspector.unapplied_edits()
    if unapplied:
        return f"Not saved: {unapplied}."
    if not profile.start_urls:
        return "Not saved: no start page. Open the site's home page and click \u201cUse this page\u201d."
    return ""
