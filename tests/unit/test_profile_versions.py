"""Profiles keep their versions: schema 4 -> 5 on a real file, every save records one, diff, revert, CLI."""

import json
import shutil
from pathlib import Path

import pytest

from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.profile_diff import diff_profiles
from xnews_gui.core.profile.rules import Rule
from xnews_gui.store import Store, StoreError
from xnews_gui.store.db import SCHEMA_VERSION
from xnews_gui.store.versions import KEEP_VERSIONS

SCHEMA4 = Path(__file__).parent.parent / "data" / "schema4.sqlite3"  # made by XNews with store schema 4


def demo_profile(name="demo") -> Profile:
    return Profile.from_dict({
        "schema": 2, "name": name, "start_urls": ["http://127.0.0.1:8765/"],
        "links": {"articles": {"kind": "css", "selector": "h3.title-news a"}},
        "fields": {"title": {"kind": "css", "selector": "h1.article-title", "take": "text", "required": True},
                   "body": {"kind": "css", "selector": "div.article-body", "take": "html", "required": True}},
    })


def test_a_schema_4_database_gets_versions_and_keeps_everything(tmp_path):
    path = tmp_path / "xnews.sqlite3"
    shutil.copyfile(SCHEMA4, path)
    store = Store.open(tmp_path, path=path)
    try:
        assert store.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 7  # through the last
        before = store.load_profile("demo")
        assert before is not None and "body" in before.fields
        [first] = store.profile_history("demo")  # the stored profile is version 1
        assert (first.number, first.reason) == (1, "as it was before versions were kept")
        assert first.json is None  # the list is light; one version's JSON is read on demand
        assert Profile.from_json(store.profile_version("demo", 1).json) == before
        assert store.recent_runs(profile="demo")[0].pages == 3  # the old runs are still there
        changed = before.with_field("body", Rule.from_dict({"kind": "css", "selector": "div.story-text", "take": "html"}))
        assert store.save_profile(changed, reason="repair accepted: body") == 2
    finally:
        store.close()
    again = Store.open(tmp_path, path=path)  # reopening migrates nothing twice
    try:
        assert [(v.number, v.reason) for v in again.profile_history("demo")] == [
            (2, "repair accepted: body"), (1, "as it was before versions were kept")]
    finally:
        again.close()


def test_every_save_records_a_version_and_revert_is_one_too(store):
    p1 = demo_profile()
    assert store.save_profile(p1, reason="saved in inspector") == 1
    assert store.save_profile(p1, reason="saved in inspector") == 1  # nothing changed: no new version
    p2 = p1.with_field("body", Rule.from_dict({"kind": "css", "selector": "div.story-text", "take": "html"}))
    assert store.save_profile(p2, reason="repair accepted: body") == 2
    assert store.load_profile("demo") == p2
    profile, number = store.revert_profile("demo", 1)
    assert number == 3 and profile == p1 and store.load_profile("demo") == p1
    history = store.profile_history("demo")
    assert [v.number for v in history] == [3, 2, 1]
    assert history[0].reason.startswith("reverted to version 1 (of ")
    assert Profile.from_json(store.profile_version("demo", 2).json) == p2
    with pytest.raises(StoreError, match="no version 9"):
        store.revert_profile("demo", 9)
    assert store.delete_profile("demo") and store.profile_history("demo") == []


def test_only_the_last_versions_are_kept_and_numbers_are_not_reused(store):
    p = demo_profile()
    for i in range(KEEP_VERSIONS + 5):
        store.save_profile(p.with_(description=f"v{i}"), reason=f"save {i}")
    history = store.profile_history("demo")
    assert len(history) == KEEP_VERSIONS
    assert history[0].number == KEEP_VERSIONS + 5 and history[-1].number == 6
    assert json.loads(store.profile_version("demo", KEEP_VERSIONS + 5).json)["description"] == f"v{KEEP_VERSIONS + 4}"
    assert store.profile_version("demo", 5) is None  # pruned


def test_diff_says_which_rule_of_which_field_changed():
    old = demo_profile().with_(crawl=demo_profile().crawl.__class__(delay_s=0.5))
    new = old.with_field("body", Rule.from_dict({"kind": "css", "selector": "div.story-text", "take": "html"}))
    new = new.with_field("author", Rule.from_dict({"kind": "css", "selector": ".byline", "take": "text"}))
    new = new.with_(crawl=old.crawl.__class__(delay_s=1.0), start_urls=("http://127.0.0.1:8765/", "http://127.0.0.1:8765/b/"))
    lines = [str(c) for c in diff_profiles(old, new)]
    assert "body: rule 1: css 'div.article-body' (html), required \u2192 css 'div.story-text' (html)" in lines
    assert "author: field added: css '.byline' (text)" in lines
    assert "crawl settings: delay_s: 0.5 \u2192 1.0" in lines
    assert "start pages: added [\"http://127.0.0.1:8765/b/\"]" in lines
    assert not any(line.startswith("title") for line in lines)
    assert diff_profiles(new, new) == []
    back = [str(c) for c in diff_profiles(new, old)]
    assert "author: field removed (it was css '.byline' (text))" in back


def test_cli_import_history_diff_and_revert(cli, tmp_path):
    first = tmp_path / "mysite.json"
    first.write_text(demo_profile("mysite").to_json(), encoding="utf-8")
    assert cli("profiles", "import", str(first))[0] == 0
    second = tmp_path / "mysite2.json"
    changed = demo_profile("mysite").with_field("body", Rule.from_dict({"kind": "css", "selector": "div.story-text", "take": "html"}))
    second.write_text(changed.to_json(), encoding="utf-8")
    code, out, _ = cli("profiles", "import", str(second))
    assert code == 0 and "(version 2; it replaces the stored one, kept in `profiles history mysite`)" in out
    code, out, _ = cli("profiles", "history", "mysite")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [r[0] for r in rows] == ["2", "1"]
    assert "imported from file mysite2.json  (current)" in out.splitlines()[1]
    code, out, _ = cli("profiles", "history", "mysite", "1")
    assert code == 0 and "body: rule 1: css 'div.article-body' (html), required \u2192 css 'div.story-text' (html)" in out
    code, out, _ = cli("profiles", "revert", "mysite", "1")
    assert code == 0 and "saved as version 3" in out
    code, out, _ = cli("profiles", "show", "mysite")
    assert json.loads(out)["fields"]["body"]["selector"] == "div.article-body"
    code, _, err = cli("profiles", "revert", "mysite", "7")
    assert code != 0 and "no version 7" in err and "Traceback" not in err
    code, _, err = cli("profiles", "history", "nosuch")
    assert code != 0 and "no profile named 'nosuch'" in err


def test_profiles_check_names_the_last_crawls_degraded_fields(cli, data_dir):
    assert cli("profiles", "list")[0] == 0  # seeds the bundled profiles
    store = Store.open(data_dir)
    try:
        run = store.start_run("demo")
        store.finish_run(run, "finished", {"pages": 40, "degraded_fields": {"body": ["http://127.0.0.1:8765/a-3.htm"]},
                                           "degraded_counts": {"body": [7, 30]}})
    finally:
        store.close()
    code, out, _ = cli("profiles", "check", "demo")
    assert "body degraded on 7 of the last 30 pages, e.g. http://127.0.0.1:8765/a-3.htm" in out.splitlines()[0]
    assert "fields ok" in out  # the self-test still runs


SAVER = """
import sys
from pathlib import Path
from xnews_gui.core.profile.profile import Profile
from xnews_gui.store import Store
root, tag = Path(sys.argv[1]), sys.argv[2]
profile = Profile.from_json(Path(sys.argv[3]).read_text(encoding="utf-8"))
store = Store.open(root)
for i in range(15):
    store.save_profile(profile.with_(description=f"{tag}{i}"), reason=f"saved by {tag}")
store.close()
"""


def test_two_processes_saving_at_once_number_their_versions_one_after_the_other(store, data_dir, tmp_path):
    import subprocess
    import sys

    path = tmp_path / "p.json"
    path.write_text(demo_profile().to_json(), encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(data_dir), tag, str(path)],
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    history = store.profile_history("demo")
    assert [v.number for v in history] == list(range(30, 0, -1))
    assert {v.reason for v in history} == {"saved by a", "saved by b"}
