"""At Save, the picked fields' rules are learned again from the site (``core.selectors.induce_profile``).

A pick induces a rule from the clicked page alone (fast, while the person clicks). At Save the
clicks are induced once more with the preview's article pages as unlabeled siblings: the rule
that holds on those pages wins, a one-paragraph body pick is widened to the article's
container, fallbacks and metadata anchors form each field's chain, a content profile is
stored for verification, and share/related blocks inside the body become remove rules.
``notes`` tell the person what changed. No Qt here: the job runs in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.profile import FIELDS, Profile
from ...core.selectors import induce_profile
from .draft import Draft

MAX_SIBLINGS = 6


@dataclass(frozen=True)
class SiteJob:
    """A snapshot of what to learn: the draft may change while a worker induces."""

    groups: tuple  # ((clicked url, {field: [(html, xpath)]}), ...): one induction per clicked page
    siblings: tuple  # ((url, html), ...): article pages nobody clicked
    generations: dict  # field -> the draft's generation for it at the snapshot
    name: str
    start_url: str


def pending(draft: Draft | None) -> list[str]:
    """The picked fields whose rule was not learned from the site since their last change."""
    if draft is None:
        return []
    return [k for k in FIELDS if k in draft.picked and k in draft.profile.fields and draft.examples.get(k)
            and draft.learned.get(k) != draft.generations.get(k, 0)]


def site_job(draft: Draft, pages: dict) -> SiteJob | None:
    """The job for ``pending(draft)``; ``pages`` = {url: html} of the preview's article pages."""
    fields = pending(draft)
    if not fields:
        return None
    by_url: dict[str, dict] = {}
    siblings = dict(pages)
    for key in fields:
        url, html, xpath = draft.examples[key][-1]  # the latest click made the rule
        by_url.setdefault(url, {})[key] = [(html, xpath)]
        for other_url, other_html, _ in draft.examples[key][:-1]:  # earlier clicks: other pages of the site
            siblings.setdefault(other_url, other_html)
    start = draft.profile.start_urls[0] if draft.profile.start_urls else next(iter(by_url))
    return SiteJob(tuple(by_url.items()), tuple(siblings.items()), {k: draft.generations.get(k, 0) for k in fields},
                   draft.profile.name, start)


def learn(job: SiteJob) -> tuple[Profile, list[str]]:
    """Induce (in a worker): the learned fields, chains and remove rules as one profile, and the notes."""
    notes: list[str] = []
    fields, chains, remove = {}, {}, []
    for url, clicks in job.groups:
        siblings = [html for u, html in job.siblings if u != url][:MAX_SIBLINGS]  # never the clicked page itself
        for key, pairs in clicks.items():
            said = len(notes)
            try:
                induced = induce_profile({key: pairs}, siblings=siblings, name=job.name, start_url=job.start_url,
                                         notes=notes)
            except ValueError as exc:  # the clicked element is gone from the page as lxml reads it
                notes.append(f"{key}: kept the picked rule ({exc})")
                continue
            if key in induced.fields:  # the rule panel's tooltip says what learning did
                own = [n.split(": ", 1)[-1] for n in notes[said:] if n.startswith(f"{key}:")]
                note = f"learned from {len(siblings)} pages of the site" + (": " + "; ".join(own) if own else "")
                fields[key] = induced.fields[key].with_(note=note)
                if key in induced.chains:
                    chains[key] = induced.chains[key]
            remove += [r for r in induced.remove if r not in remove]
    return Profile(name=job.name, start_urls=(job.start_url,), fields=fields, chains=chains, remove=tuple(remove)), notes


def merge(draft: Draft, job: SiteJob, learned: Profile) -> list[str]:
    """Put what was learned into the draft as it is now; the fields updated. A field changed since the
    snapshot (a newer pick, a hand edit) keeps its new rule."""
    done = []
    profile = draft.profile
    for key, generation in job.generations.items():
        if draft.generations.get(key, 0) != generation or key not in draft.picked:
            continue
        draft.learned[key] = generation  # also when nothing was learned: the picked rule stays, Save goes on
        if key in learned.fields:
            profile = profile.with_field(key, learned.fields[key], learned.chains.get(key))
            done.append(key)
    if "body" in done:  # remove rules come from the body's container: learned again with it
        kept = tuple(r for r in profile.remove if r not in draft.learned_remove)  # the person's own picks stay
        added = tuple(r for r in learned.remove if r not in kept)
        draft.learned_remove = added
        profile = profile.with_(remove=kept + added)
    draft.profile = profile
    return done
