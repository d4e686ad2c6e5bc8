"""At Save, the picked fields' rules are learned again from the site (``core.induction.selectors.induce_profile``).

A pick induces a rule from the clicked page alone (fast, while the person clicks). At Save the
clicks are induced once more with the preview's article pages as unlabeled siblings: the rule
that holds on those pages wins, a one-paragraph body pick is widened to the whole story,
fallbacks and metadata anchors form each field's chain, a content profile is stored for
verification, and share/related blocks inside the body become remove rules. Clicks on pages of
other layouts are learned each on its own page and join the chain as alternatives
(``core.induction.alternatives``): nothing learned replaces a rule that works elsewhere in silence - the
values that change on pages that worked are returned (``changes``) for the person to approve.
``notes`` tell the person what changed. No Qt here: the job runs in a worker.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...core.induction.alternatives import merge_expect, place, value_with
from ...core.profile.chain import MAX_CHAIN, FieldChain
from ...core.extraction.extract import extract
from ...core.profile.profile import FIELDS, Profile
from ...core.text.text import normalize_space
from ...core.induction.selectors import induce_profile
from ...core.profile.verify import words
from .draft import Draft, takes

MAX_SIBLINGS = 6


@dataclass(frozen=True)
class SiteJob:
    """A snapshot of what to learn: the draft may change while a worker induces."""

    groups: tuple  # ((clicked url, {field: [(html, xpath)]}), ...): one induction per clicked page
    siblings: tuple  # ((url, html), ...): article pages (and the other clicked pages)
    generations: dict  # field -> the draft's generation for it at the snapshot
    name: str
    start_url: str
    before: Profile | None = None  # the draft's profile at the snapshot (its values are compared)
    clicks: tuple = ()  # ((field, url), ...) in the order the person clicked
    rejected: tuple = ()  # ((field, html, xpath), ...): matches the person rejected


@dataclass(frozen=True)
class Change:
    """A value learning changes on a page where the rules gave a good one."""

    url: str
    field: str
    before: str
    after: str


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
    clicks = []
    for key in fields:
        for url, html, xpath in draft.examples[key]:  # each clicked page: its layout's rule
            by_url.setdefault(url, {})[key] = [(html, xpath)]
            siblings.setdefault(url, html)
            clicks.append((key, url))
    start = draft.profile.start_urls[0] if draft.profile.start_urls else next(iter(by_url))
    rejected = tuple((k, h, x) for k in fields for _, h, x in draft.negatives.get(k, []))
    return SiteJob(tuple(by_url.items()), tuple(siblings.items()), {k: draft.generations.get(k, 0) for k in fields},
                   draft.profile.name, start, draft.profile, tuple(clicks), rejected)


def learn(job: SiteJob) -> tuple[Profile, list[str], list[Change]]:
    """Induce (in a worker): the learned fields, chains and remove rules as one profile, the notes, and the
    values that change on pages where the rules at the snapshot gave good ones."""
    notes: list[str] = []
    learned: dict[str, list] = {}  # field -> [(rule, chain, clicked url, clicked html)] in click order
    remove = []
    clicked = dict(job.groups)
    for key, url in job.clicks or [(k, u) for u, c in job.groups for k in c]:
        pairs = clicked[url][key]
        siblings = [html for u, html in job.siblings if u != url][:MAX_SIBLINGS]  # never the clicked page itself
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
            learned.setdefault(key, []).append((induced.fields[key].with_(note=note), induced.chains.get(key),
                                                url, pairs[0][0]))
        else:
            notes[said:] = [n for n in notes[said:] if not n.startswith(f"{key}:")]
            notes.append(f"{key}: kept the picked rule (no rule learned from the site's pages holds better)")
        remove += [r for r in induced.remove if r not in remove]
    fields, chains = {}, {}
    for key, results in learned.items():
        rule, chain = _one_chain(key, results)
        if any(takes(r, h, x) for r in (rule, *(chain.fallbacks if chain else ())) for k, h, x in job.rejected
               if k == key):
            notes.append(f"{key}: kept the picked rule (the one learned from the site takes a match you rejected)")
            continue
        fields[key], chains[key] = rule, chain
    profile = Profile(name=job.name, start_urls=(job.start_url,), fields=fields, chains=chains, remove=tuple(remove))
    return profile, notes, changes(job, profile)


def _one_chain(key: str, results: list) -> tuple:
    """The chains learned from each clicked page as one: the first click's, then each other click's rules
    where its page still gets its own value."""
    first, chain, _, _ = results[0]
    rules = [first, *(chain.fallbacks if chain else ())]
    anchors = list(chain.anchors) if chain else []
    expect = chain.expect if chain else None
    pages = []
    for rule, other, url, html in results:
        want = value_with(key, [rule, *(other.fallbacks if other else ())], (), html, url)
        pages.append((html, url, want))
    for rule, other, _, _ in results[1:]:
        for new in [rule, *(other.fallbacks if other else ())]:
            rules, _ = place(key, rules, new, pages, ())
        anchors += [a for a in (other.anchors if other else ()) if a not in anchors]
        expect = merge_expect(expect, other.expect if other else None)
    head = rules[0].with_(required=key in ("title", "body"))
    return head, FieldChain(fallbacks=tuple(r.with_(required=False) for r in rules[1:])[:MAX_CHAIN - 1],
                            anchors=tuple(anchors)[:MAX_CHAIN], expect=expect,
                            fingerprint=chain.fingerprint if chain else None)


def _with_learned(before: Profile, job: SiteJob, learned: Profile) -> Profile:
    profile = before
    for key in job.generations:
        if key in learned.fields:
            profile = profile.with_field(key, learned.fields[key], learned.chains.get(key))
    kept = tuple(r for r in profile.remove if r not in learned.remove)
    return profile.with_(remove=kept + learned.remove)


def changes(job: SiteJob, learned: Profile) -> list[Change]:
    """Pages where a learned field's value moves away from one that was good (non-empty, nothing flagged)."""
    if job.before is None:
        return []
    after_profile = _with_learned(job.before, job, learned)
    out = []
    for url, html in job.siblings:
        old, new = extract(html, url, job.before), extract(html, url, after_profile)
        for key in job.generations:
            if key not in learned.fields:
                continue
            was, now = old.value(key), new.value(key)
            if was and not old.checks.get(key) and not _same(key, was, now):
                out.append(Change(url, key, was, now))
    return out


def _same(key: str, was: str, now: str) -> bool:
    """The learned value says what the good one said (a body may lose a byline or gain a paragraph)."""
    if key != "body":
        return normalize_space(was) == normalize_space(now)
    a, b = Counter(words(was)), Counter(words(now))
    common = sum((a & b).values())
    return bool(common) and 2 * common / (sum(a.values()) + sum(b.values())) >= 0.9


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
        added = tuple(r for r in learned.remove if r not in kept and r not in draft.dropped_remove)
        draft.learned_remove = added
        profile = profile.with_(remove=kept + added)
    draft.profile = profile
    return done


def keep_picked(draft: Draft, job: SiteJob) -> None:
    """The person kept the rules as they were: learning is done for these fields (Save goes on)."""
    for key, generation in job.generations.items():
        if draft.generations.get(key, 0) == generation:
            draft.learned[key] = generation
