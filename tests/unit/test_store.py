"""The SQLite store: WAL, schema version, uniqueness, FTS5 search, crash safety."""

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from xnews_gui.core.extract import Article
from xnews_gui.store import repo
from xnews_gui.store.db import SCHEMA_VERSION, StoreError, close_database, open_database
from xnews_gui.store.models import Article as ArticleRow


def art(url, title="Bóng đá Việt Nam thắng lớn", body="Đội tuyển giành chiến thắng 3-0 trên sân nhà."):
    return Article(url=url, title=title, summary="Tóm tắt", body_text=body, body_html=f"<p>{body}</p>")


def test_pragmas_and_schema_version(db, data_dir):
    assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_articles_are_unique_by_canonical_url_and_content(db):
    first, created = repo.store_article(art("HTTP://Example.COM:80/a/b.htm#top"), "p")
    assert created
    same, created = repo.store_article(art("http://example.com/a/b.htm"), "p")
    assert (same, created) == (first, False)
    # the same text under another URL is known too
    dup, created = repo.store_article(art("http://example.com/other-url.htm"), "p")
    assert (dup, created) == (first, False)
    other, created = repo.store_article(art("http://example.com/c.htm", body="Khác hẳn."), "p")
    assert created and other != first
    assert ArticleRow.select().count() == 2
    assert repo.is_known("http://EXAMPLE.com/a/b.htm")


def test_full_text_search_with_and_without_diacritics(db):
    repo.store_article(art("http://e.com/1.htm"), "p")
    repo.store_article(art("http://e.com/2.htm", title="Giá vàng tăng mạnh", body="Thị trường vàng sôi động."), "p")
    assert [a.url for a in repo.search("vàng")] == ["http://e.com/2.htm"]
    assert [a.url for a in repo.search("vang")] == ["http://e.com/2.htm"]
    assert [a.url for a in repo.search("chiến thắ")] == ["http://e.com/1.htm"]  # prefix on the last word
    assert [a.url for a in repo.search("bong da viet nam")] == ["http://e.com/1.htm"]  # đ typed as d
    assert [a.url for a in repo.search("Đội tuyển")] == ["http://e.com/1.htm"]
    assert repo.search('"; DROP TABLE article; --') == []
    assert repo.search("") == []


def test_fts_follows_updates_and_deletes(db):
    aid, _ = repo.store_article(art("http://e.com/1.htm"), "p")
    ArticleRow.update(title="Tiêu đề mới hoàn toàn").where(ArticleRow.id == aid).execute()
    assert repo.search("hoàn toàn")[0].id == aid
    assert repo.search("lớn") == []
    ArticleRow.delete().where(ArticleRow.id == aid).execute()
    assert repo.search("hoàn toàn") == []


def test_newer_schema_is_refused_clearly(data_dir):
    path = data_dir / "x.sqlite3"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    con.close()
    with pytest.raises(StoreError, match="made by a newer XNews"):
        open_database(path)


def test_reopening_keeps_data_and_does_not_migrate_twice(data_dir):
    path = data_dir / "x.sqlite3"
    open_database(path)
    repo.store_article(art("http://e.com/1.htm"), "p")
    close_database()
    open_database(path)
    assert repo.count_articles() == 1
    close_database()


def test_kill_mid_write_loses_no_committed_article_and_leaves_no_partial_row(data_dir):
    """A child process commits 50 articles, then dies (os._exit) inside an open transaction."""
    path = data_dir / "crash.sqlite3"
    script = textwrap.dedent(f"""
        import os
        from xnews_gui.core.extract import Article
        from xnews_gui.store import repo
        from xnews_gui.store.db import open_database
        from xnews_gui.store.models import database, Article as Row
        open_database({str(path)!r})
        for i in range(50):
            repo.store_article(Article(url=f"http://e.com/{{i}}.htm", title=f"t{{i}}", body_text=f"b{{i}}"), "p")
        with database.atomic():
            Row.create(profile="p", url="http://e.com/partial.htm", title="partial", content_hash="x")
            os._exit(9)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    open_database(path)
    try:
        assert repo.count_articles() == 50
        assert not repo.is_known("http://e.com/partial.htm")
        assert repo.search("t49")[0].url == "http://e.com/49.htm"
    finally:
        close_database()


def test_unwritable_location_gives_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the data folder"):
        open_database(blocker / "sub" / "db.sqlite3")


def test_migration_from_version_1_keeps_articles_searchable(data_dir):
    """A database made by the first schema is migrated forward and its index rebuilt."""
    from peewee import SqliteDatabase

    from xnews_gui.store.db import MIGRATIONS
    from xnews_gui.store.models import database

    path = data_dir / "old.sqlite3"
    old = SqliteDatabase(str(path))
    database.initialize(old)
    with old.atomic():
        MIGRATIONS[0](old)
        old.execute_sql("PRAGMA user_version = 1")
    repo.store_article(art("http://e.com/1.htm"), "p")
    old.close()
    db = open_database(path)
    try:
        assert db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [a.url for a in repo.search("bong da")] == ["http://e.com/1.htm"]
    finally:
        close_database()
