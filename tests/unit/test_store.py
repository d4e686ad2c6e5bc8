"""The SQLite store: WAL, schema version, uniqueness, FTS5 search, crash safety."""

import json
import sqlite3
import subprocess
import sys
import textwrap
import threading

import pytest

from xnews_gui.core.extraction.extract import Article
from xnews_gui.store import Store
from xnews_gui.store.db import SCHEMA_VERSION, StoreError


def art(url, title="Bóng đá Việt Nam thắng lớn", body="Đội tuyển giành chiến thắng 3-0 trên sân nhà."):
    return Article(url=url, title=title, summary="Tóm tắt", body_text=body, body_html=f"<p>{body}</p>")


def test_pragmas_and_schema_version(store, data_dir):
    db = store.db
    assert store.path == data_dir / "xnews.sqlite3"
    assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_articles_are_unique_by_canonical_url_and_content(store):
    first, created = store.store_article(art("HTTP://Example.COM:80/a/b.htm#top"), "p")
    assert created
    same, created = store.store_article(art("http://example.com/a/b.htm"), "p")
    assert (same, created) == (first, False)
    # the same text under another URL is known too
    dup, created = store.store_article(art("http://example.com/other-url.htm"), "p")
    assert (dup, created) == (first, False)
    other, created = store.store_article(art("http://example.com/c.htm", body="Khác hẳn."), "p")
    assert created and other != first
    assert store.models.Article.select().count() == 2
    assert store.is_known("http://EXAMPLE.com/a/b.htm")


def test_known_urls_answers_as_is_known_over_many_chunks(store):
    stored = [f"http://e.com/s{i}.htm" for i in range(0, 1200, 7)]
    for i, url in enumerate(stored):
        store.store_article(art(url, body=f"Bài số {i}."), "p")
    skipped = [f"http://e.com/k{i}.htm" for i in range(0, 1200, 11)]
    for url in skipped:
        store.mark_skipped(url, "topic")
    for i in range(0, 1200, 13):  # pages fetched but neither stored nor skipped are not known
        store.record_page(f"http://e.com/p{i}.htm", 200, kind="article")
    asked = [f"http://e.com/{c}{i}.htm" for i in range(1200) for c in "skp"] + stored[:5]  # 3,605 URLs
    known = store.known_urls(asked)
    assert known == set(stored) | set(skipped)
    assert known == {u for u in asked if store.is_known(u)}
    assert store.known_urls([]) == set()


def test_full_text_search_with_and_without_diacritics(store):
    store.store_article(art("http://e.com/1.htm"), "p")
    store.store_article(art("http://e.com/2.htm", title="Giá vàng tăng mạnh", body="Thị trường vàng sôi động."), "p")
    assert [a.url for a in store.search("vàng")] == ["http://e.com/2.htm"]
    assert [a.url for a in store.search("vang")] == ["http://e.com/2.htm"]
    assert [a.url for a in store.search("chiến thắ")] == ["http://e.com/1.htm"]  # prefix on the last word
    assert [a.url for a in store.search("bong da viet nam")] == ["http://e.com/1.htm"]  # đ typed as d
    assert [a.url for a in store.search("Đội tuyển")] == ["http://e.com/1.htm"]
    assert store.search('"; DROP TABLE article; --') == []
    assert store.search("") == []


def test_search_leaves_out_minus_words_and_reads_phrases_and_parts(store):
    """`Berlin -Feuer` found exactly the story with Feuer (the minus was dropped); `title:Maya` found nothing."""
    store.store_article(art("http://e.com/1.htm", title="Feuer in Berlin-Lichterfelde", body="Brand im Haus."), "p")
    store.store_article(art("http://e.com/2.htm", title="Berlin wählt", body="Die Wahl in Berlin, kein Feuer."), "p")
    store.store_article(art("http://e.com/3.htm", title="Maya-Städte im Regenwald", body="Berlin liegt fern."), "p")
    found = lambda text: sorted(a.url[-5:] for a in store.search(text))  # noqa: E731
    assert found("Berlin -Feuer") == ["3.htm"]
    assert found("Berlin -\"im Haus\"") == ["2.htm", "3.htm"]
    assert found("title:Maya") == ["3.htm"] and found("title:berlin") == ["1.htm", "2.htm"]
    assert found("text:Maya") == [] and found('"Brand im Haus"') == ["1.htm"] and found('"Haus Brand"') == []
    assert found("-Feuer") == ["3.htm"]  # only words to leave out: every other article
    assert found("Berlin-Lichterfelde") == ["1.htm"] and found("Lichterf") == ["1.htm"]  # the last word typed
    store.store_article(art("http://e.com/4.htm", title="Giá ô tô giảm", body="Xe hơi rẻ hơn."), "p")
    store.store_article(art("http://e.com/5.htm", title="Tô phở ông Hùng", body="Một tô phở nóng."), "p")
    assert found("ô tô") == ["4.htm"]  # only the last word is a prefix: "ô"* matched "ông"
    store.store_article(art("http://e.com/6.htm", title="Title of a story", body="Its text."), "p")
    assert found("title:") == [] and found("text:") == []  # a part named, its word not typed yet: no word
    assert found("title: Maya") == ["3.htm"]  # "title: Maya" as typed with a space: Maya, anywhere
    from xnews_gui.store.queries import ArticleFilter  # the Articles list's search: the same words, the same rows

    listed = lambda text: sorted(i for _, i in store.ordered_keys(ArticleFilter(text=text)))  # noqa: E731
    ids = {a.url[-5:]: a.id for a in store.search("Berlin")}
    assert listed("Berlin -Feuer") == [ids["3.htm"]] and listed("title:berlin -Feuer") == []


def test_fts_follows_updates_and_deletes(store):
    aid, _ = store.store_article(art("http://e.com/1.htm"), "p")
    ArticleRow = store.models.Article
    ArticleRow.update(title="Tiêu đề mới hoàn toàn").where(ArticleRow.id == aid).execute()
    assert store.search("hoàn toàn")[0].id == aid
    assert store.search("lớn") == []
    ArticleRow.delete().where(ArticleRow.id == aid).execute()
    assert store.search("hoàn toàn") == []


def test_newer_schema_is_refused_clearly(data_dir):
    path = data_dir / "x.sqlite3"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    con.close()
    with pytest.raises(StoreError, match="made by a newer XNews"):
        Store.open(data_dir, path=path)


def test_reopening_keeps_data_and_does_not_migrate_twice(data_dir):
    path = data_dir / "x.sqlite3"
    with Store.open(data_dir, path=path) as store:
        store.store_article(art("http://e.com/1.htm"), "p")
    with Store.open(data_dir, path=path) as store:
        assert store.count_articles() == 1


def test_kill_mid_write_loses_no_committed_article_and_leaves_no_partial_row(data_dir):
    """A child process commits 50 articles, then dies (os._exit) inside an open transaction."""
    path = data_dir / "crash.sqlite3"
    script = textwrap.dedent(f"""
        import os
        from xnews_gui.core.extraction.extract import Article
        from xnews_gui.store import Store
        store = Store.open({str(data_dir)!r}, path={str(path)!r})
        Row = store.models.Article
        for i in range(50):
            store.store_article(Article(url=f"http://e.com/{{i}}.htm", title=f"t{{i}}", body_text=f"b{{i}}"), "p")
        with store.writing():
            Row.create(profile="p", url="http://e.com/partial.htm", title="partial", content_hash="x")
            os._exit(9)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    with Store.open(data_dir, path=path) as store:
        assert store.count_articles() == 50
        assert not store.is_known("http://e.com/partial.htm")
        assert store.search("t49")[0].url == "http://e.com/49.htm"


def test_unwritable_location_gives_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the data folder"):
        Store.open(blocker / "sub")


def test_migration_from_version_1_keeps_articles_searchable(data_dir):
    """A database made by the first schema is migrated forward and its index rebuilt."""
    from peewee import SqliteDatabase

    from xnews_gui.store.db import MIGRATIONS

    path = data_dir / "old.sqlite3"
    old = SqliteDatabase(str(path))
    with old.atomic():
        MIGRATIONS[0](old)
        old.execute_sql("ALTER TABLE crawl_run DROP COLUMN pid")  # version 1 had no pid
        old.execute_sql("PRAGMA user_version = 1")
        old.execute_sql("INSERT INTO crawl_run (profile, started, status, pages, articles, errors, stats_json) "
                        "VALUES ('p', '2026-01-01', 'running', 0, 0, 0, '{}')")
    Store(old, data_dir, threading.RLock()).store_article(art("http://e.com/1.htm"), "p")
    old.close()
    with Store.open(data_dir, path=path) as store:
        assert store.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [a.url for a in store.search("bong da")] == ["http://e.com/1.htm"]
        # a run of version 1 has no process: left 'running', it was interrupted
        assert store.mark_interrupted_runs() == 1
        assert [r.status for r in store.recent_runs()] == ["interrupted"]


def test_two_stores_in_one_process_each_write_to_their_own_file(tmp_path):
    """Each store binds its own models: a profile, a run, an article and a page saved through the first
    store opened go to its file (before, the models followed whichever store was opened last)."""
    from xnews_gui.core.profile.profile import Profile

    from ..conftest import PROFILES

    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    profile = Profile.from_dict(dict(data, name="chi-mot"))
    first, second = Store.open(tmp_path / "one"), Store.open(tmp_path / "two")
    try:
        first.save_profile(profile)
        run = first.start_run("chi-mot")
        first.store_article(art("http://a.test/1.htm"), "chi-mot")
        first.record_page("http://a.test/", 200, kind="list")
        second.store_article(art("http://b.test/1.htm", body="Một bài khác hẳn."), "hai")
        assert first.profile_names() == ["chi-mot"] and second.profile_names() == []
        assert [r.id for r in first.recent_runs()] == [run] and second.recent_runs() == []
        assert [a.url for a in first.list_articles()] == ["http://a.test/1.htm"]
        assert [a.url for a in second.list_articles()] == ["http://b.test/1.htm"]
        assert first.is_known("http://a.test/1.htm") and not second.is_known("http://a.test/1.htm")
    finally:
        first.close()
        second.close()
    with sqlite3.connect(tmp_path / "one" / "xnews.sqlite3") as db:
        assert db.execute("SELECT name FROM profile_record").fetchall() == [("chi-mot",)]
        assert db.execute("SELECT url FROM article").fetchall() == [("http://a.test/1.htm",)]
    with sqlite3.connect(tmp_path / "two" / "xnews.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM profile_record").fetchone() == (0,)


def test_an_older_database_gets_its_watch_tables_and_a_watch_fires_once_per_article(tmp_path):
    """Schema 6: watches. A schema-4 file migrates; a new article matches once; it is never matched again."""
    import shutil
    from pathlib import Path

    from xnews_gui.core.extraction.extract import Article as Extracted
    from xnews_gui.store.sink import StoreSink

    path = tmp_path / "xnews.sqlite3"
    shutil.copyfile(Path(__file__).resolve().parents[1] / "data" / "schema4.sqlite3", path)
    with Store.open(tmp_path, path=path) as store:
        store.add_watch("bão", words="bao so")
        fired = []
        sink = StoreSink(store, "demo", on_watch=fired.extend)
        story = Extracted(url="http://example.test/bao-1.htm", title="Bão số 5 đổ bộ", body_text="Bão số 5 vào bờ.",
                          body_html="<p>Bão số 5 vào bờ.</p>")
        other = Extracted(url="http://example.test/gia-2.htm", title="Giá xăng", body_text="Giá xăng giảm.",
                          body_html="<p>Giá xăng giảm.</p>")
        [(first, created), _] = sink.write_batch([(story, None, None, None), (other, None, None, None)])
        assert created and [(h.watch, h.article_id, h.title) for h in fired] == [("bão", first, "Bão số 5 đổ bộ")]
        sink.write_batch([(story, None, None, None)])  # the same article again: known, never a second hit
        assert len(fired) == 1 and store.watch_hit_counts() == {"bão": 1} and store.unseen_watch_hits() == {"bão": 1}
        store.mark_watch_seen("bão")
        assert store.unseen_watch_hits() == {} and [a["id"] for a in store.watch_articles("bão")] == [first]
