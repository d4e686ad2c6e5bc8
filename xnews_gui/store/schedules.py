"""Each profile's re-crawl schedule (every N minutes, the next run) and a crawl to resume, kept in the
store with the profile, so they outlive the app: after a restart the schedule goes on where it was.

    store.set_schedule("demo", 30, next_run)       # minutes 0: no schedule
    store.schedules()                               # {"demo": Schedule(...)}
    store.mark_interrupted(["demo"])                # the app closes during its crawl: offer Resume next time

Times are UTC (naive, as every time the store keeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from peewee import SqliteDatabase

from .models import utcnow


@dataclass(frozen=True)
class Schedule:
    profile: str
    minutes: int
    next_run: datetime | None  # UTC
    interrupted: datetime | None  # UTC


class Schedules:
    """Mixed into ``Store``."""

    db: SqliteDatabase
    models: "object"  # the store's bound models (store.models)

    def schedules(self) -> dict[str, Schedule]:
        return {r.profile: Schedule(r.profile, int(r.minutes or 0), _when(r.next_run), _when(r.interrupted))
                for r in self.models.ProfileSchedule.select()}

    def set_schedule(self, profile: str, minutes: int, next_run: datetime | None = None) -> None:
        """Re-crawl ``profile`` every ``minutes`` (0: never), next at ``next_run`` (UTC)."""
        minutes = max(0, int(minutes))
        self._upsert(profile, minutes=minutes, next_run=next_run if minutes else None)

    def set_next_run(self, profile: str, next_run: datetime | None) -> None:
        self._upsert(profile, next_run=next_run)

    def mark_interrupted(self, profiles, when: datetime | None = None) -> None:
        """The app closes while these profiles' crawls run: their next start offers to resume them."""
        for profile in profiles:
            self._upsert(profile, interrupted=when or utcnow())

    def clear_interrupted(self, profile: str) -> None:
        self._upsert(profile, interrupted=None)

    def _upsert(self, profile: str, **values) -> None:
        ProfileSchedule = self.models.ProfileSchedule
        with self.write_lock, self.db.atomic("IMMEDIATE"):
            row = ProfileSchedule.get_or_none(ProfileSchedule.profile == profile)
            if row is None:
                ProfileSchedule.create(profile=profile, **{"minutes": 0, **values})
            else:
                ProfileSchedule.update(**values).where(ProfileSchedule.id == row.id).execute()


def _when(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None
