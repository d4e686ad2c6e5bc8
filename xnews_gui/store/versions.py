"""Profiles keep their versions: every save records one (when, why, the JSON); revert is a save too.

    number = store.save_profile(profile, reason="repair accepted: body")
    store.profile_history("demo")            # [ProfileVersion], newest first
    store.revert_profile("demo", 3)          # the profile as version 3 had it, saved as a new version

Only the last ``KEEP_VERSIONS`` versions of a profile are kept; numbers are never reused.
A save whose JSON equals the newest version's records nothing new.
"""

from __future__ import annotations

from peewee import SqliteDatabase, fn

from ..core.profile.profile import Profile
from .db import StoreError
from .models import ProfileVersion, utcnow

KEEP_VERSIONS = 50
MAX_REASON = 200


class Versions:
    """Profile saves with history. Mixed into ``Store``."""

    db: SqliteDatabase

    def save_profile(self, profile: Profile, reason: str = "saved") -> int:
        """Store the profile (replacing one of the same name) and record a version; its number."""
        m = self.models
        text = profile.to_json()
        reason = " ".join(str(reason).split())[:MAX_REASON] or "saved"
        # IMMEDIATE: the write lock is taken before the newest version is read, so two processes
        # saving at once (the app and `profiles import`) number their versions one after the other
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            rec = m.ProfileRecord.get_or_none(m.ProfileRecord.name == profile.name)
            if rec is None:
                m.ProfileRecord.create(name=profile.name, json=text)
            elif rec.json != text:
                rec.json = text
                rec.updated = utcnow()
                rec.save()
            return self._record_version(profile.name, text, reason)

    def _record_version(self, name: str, text: str, reason: str) -> int:
        m = self.models
        newest = (m.ProfileVersion.select().where(m.ProfileVersion.profile == name)
                  .order_by(m.ProfileVersion.number.desc()).first())
        if newest is not None and newest.json == text:
            return newest.number
        number = (newest.number + 1) if newest is not None else 1
        m.ProfileVersion.create(profile=name, number=number, reason=reason, json=text)
        m.ProfileVersion.delete().where(
            (m.ProfileVersion.profile == name) & (m.ProfileVersion.number <= number - KEEP_VERSIONS)
        ).execute()
        return number

    def profile_history(self, name: str) -> list[ProfileVersion]:
        """The kept versions of a profile, newest first (empty for an unknown name): number, at and
        reason only (``json`` is None; ``profile_version`` reads one version's JSON)."""
        m = self.models
        return list(m.ProfileVersion.select(m.ProfileVersion.id, m.ProfileVersion.profile, m.ProfileVersion.number,
                                          m.ProfileVersion.at, m.ProfileVersion.reason)
                    .where(m.ProfileVersion.profile == name).order_by(m.ProfileVersion.number.desc()))

    def profile_version(self, name: str, number: int) -> ProfileVersion | None:
        m = self.models
        return m.ProfileVersion.get_or_none((m.ProfileVersion.profile == name) & (m.ProfileVersion.number == number))

    def latest_version_number(self, name: str) -> int | None:
        m = self.models
        return m.ProfileVersion.select(fn.MAX(m.ProfileVersion.number)).where(m.ProfileVersion.profile == name).scalar()

    def revert_profile(self, name: str, number: int) -> tuple[Profile, int]:
        """Make version ``number`` the current profile again (recorded as a new version): (profile, new number)."""
        version = self.profile_version(name, number)
        if version is None:
            kept = [v.number for v in self.profile_history(name)]
            where = f"kept: {min(kept)}-{max(kept)}" if kept else "it has no versions"
            raise StoreError(f"profile {name!r} has no version {number} ({where})")
        profile = Profile.from_json(version.json)  # ProfileError if a newer XNews wrote it
        when = version.at.strftime("%Y-%m-%d %H:%M") if hasattr(version.at, "strftime") else str(version.at)[:16]
        return profile, self.save_profile(profile, reason=f"reverted to version {number} (of {when})")

    def delete_profile(self, name: str) -> bool:
        """Delete a profile, its versions and its re-crawl schedule (a new profile of the same name would
        otherwise be crawled on the old one's schedule, never set for it)."""
        m = self.models
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            m.ProfileVersion.delete().where(m.ProfileVersion.profile == name).execute()
            m.ProfileSchedule.delete().where(m.ProfileSchedule.profile == name).execute()
            return m.ProfileRecord.delete().where(m.ProfileRecord.name == name).execute() > 0
