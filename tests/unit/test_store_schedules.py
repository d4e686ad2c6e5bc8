"""Schedules and crawls to resume are kept in the store with the profile (store/schedules.py)."""

from __future__ import annotations

from datetime import datetime

from xnews_gui.store import Store
from xnews_gui.store.db import SCHEMA_VERSION


def test_a_schedule_and_an_interrupted_crawl_outlive_the_store(data_dir):
    with Store.open(data_dir) as store:
        assert store.schedules() == {}
        store.set_schedule("demo", 30, datetime(2030, 1, 2, 3, 4, 5))
        store.mark_interrupted(["demo", "other"], when=datetime(2030, 1, 1, 0, 0))
    with Store.open(data_dir) as store:
        kept = store.schedules()
        assert kept["demo"].minutes == 30 and kept["demo"].next_run == datetime(2030, 1, 2, 3, 4, 5)
        assert kept["demo"].interrupted == kept["other"].interrupted == datetime(2030, 1, 1)
        assert kept["other"].minutes == 0 and kept["other"].next_run is None
        store.clear_interrupted("demo")
        store.set_next_run("demo", None)
        store.set_schedule("other", 0, datetime(2030, 1, 1))  # no schedule: no next run either
        kept = store.schedules()
        assert kept["demo"].interrupted is None and kept["demo"].next_run is None and kept["demo"].minutes == 30
        assert kept["other"].next_run is None


def test_a_database_of_the_previous_schema_gets_the_table(data_dir):
    with Store.open(data_dir) as store:
        store.db.execute_sql("DROP TABLE profile_schedule")
        store.db.execute_sql("PRAGMA user_version = 5")  # the schema before the schedules' (6); later ones run too
    with Store.open(data_dir) as store:
        assert store.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        store.set_schedule("demo", 5)
        assert store.schedules()["demo"].minutes == 5


def test_a_deleted_profile_takes_its_schedule_with_it(data_dir):
    from tests.conftest import PROFILES
    from xnews_gui.core.profile.profile import Profile

    profile = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    with Store.open(data_dir) as store:
        store.save_profile(profile)
        store.set_schedule("demo", 30, datetime(2030, 1, 1))
        assert store.delete_profile("demo")
        store.save_profile(profile)  # a new profile of that name: never scheduled by anyone
        assert "demo" not in store.schedules()
