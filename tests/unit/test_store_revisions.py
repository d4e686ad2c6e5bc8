"""A changed article is a new version of the same article; a gone one is marked; nothing is lost."""

from __future__ import annotations

import shutil
from pathlib import Path

from xnews_gui.core.extraction.extract import Article
from xnews_gui.store import Store
from xnews_gui.store.queries import ArticleFilter
from xnews_gui.store.repo import article_dict
from xnews_gui.store.revisions import KEEP_VERSIONS, article_fields
from xnews_gui.store.sink import StoreSink

SCHEMA4 = Path(__file__).parent.parent / "data" / "schema4.sqlite3"
TEXT = ("Đội tuyển bóng đá quốc gia giành chiến thắng thuyết phục trước đối thủ trên sân Mỹ Đình tối qua, "
        "với hai bàn thắng ở hiệp hai sau những pha phối hợp đẹp mắt của các cầu thủ trẻ. ") * 3


def art(url, title, body=TEXT):
    return Article(url=url, title=title, summary="Tóm tắt", body_text=body, body_html=f"<p>{body}</p>")


def revise(store, url, article, **kw):
    with store.writing():
        return store.revise_article(url, article_fields(article), content_hash=article.content_hash,
                                    reason="changed at the source", **kw)


def test_a_changed_article_keeps_its_id_flags_and_label_and_its_earlier_text(store):
    sink = StoreSink(store, "p")
    [(aid, created)] = sink.write_batch([(art("http://s.vn/a.htm", "Tỉ số ban đầu"), "The thao", 0.9, None)])
    assert created
    store.set_flags(aid, starred=True)
    store.set_user_label(aid, "Xa hoi")
    assert revise(store, "http://s.vn/a.htm", art("http://s.vn/a.htm", "Tỉ số ban đầu")) == (aid, False)
    assert store.article_versions(aid) == []  # the same fields: no version
    note = "Cập nhật: đội khách gỡ hòa ở phút cuối. "
    assert revise(store, "http://s.vn/a.htm", art("http://s.vn/a.htm", "Tỉ số cuối cùng", note + TEXT),
                  category="The thao", confidence=0.5, source=('W/"1"', "Tue, 02 Jan 2024 10:00:00 GMT", "")) == (aid, True)
    row = store.get_article(aid)
    assert row.title == "Tỉ số cuối cùng" and row.body_text.startswith(note) and row.updated_at is not None
    assert row.starred and row.user_label == "Xa hoi" and row.category == "Xa hoi"  # the user's word stays
    assert row.etag == 'W/"1"' and row.dup_group is None  # worked out again (group_duplicates)
    [old] = store.article_versions(aid)
    assert (old.number, old.title, old.body_text, old.reason) == (1, "Tỉ số ban đầu", TEXT, "changed at the source")
    # search follows the new text only
    assert [a.id for a in store.search("cuối cùng")] == [aid] and store.search("ban đầu") == []
    assert store.group_duplicates() == 1 and store.get_article(aid).dup_group == aid
    data = article_dict(store.get_article(aid))
    assert data["updated_at"].endswith("+00:00") and data["gone_at"] is None


def test_only_the_last_versions_are_kept(store):
    store.store_article(art("http://s.vn/b.htm", "Bản 0"), "p")
    for n in range(1, KEEP_VERSIONS + 4):
        revise(store, "http://s.vn/b.htm", art("http://s.vn/b.htm", f"Bản {n}"))
    aid = store.article_id_for_url("http://s.vn/b.htm")
    numbers = [v.number for v in store.article_versions(aid)]
    assert numbers == list(range(KEEP_VERSIONS + 3, 3, -1)) and store.version_counts([aid]) == {aid: KEEP_VERSIONS}


def test_a_gone_article_is_marked_and_stays_readable_and_listable(store):
    kept, _ = store.store_article(art("http://s.vn/c.htm", "Bài bị gỡ"), "p")
    store.store_article(art("http://s.vn/d.htm", "Bài còn", "Nội dung khác hẳn. " * 20), "p")
    assert store.mark_gone(["http://s.vn/c.htm", "http://s.vn/none.htm"]) == 1
    first = store.get_article(kept).gone_at
    assert store.mark_gone(["http://s.vn/c.htm"]) == 0 and store.get_article(kept).gone_at == first
    assert [i for _, i in store.ordered_keys(ArticleFilter(gone_only=True))] == [kept]
    assert len(store.ordered_keys(ArticleFilter())) == 2  # still listed, still readable
    assert store.get_article(kept).body_text == TEXT
    assert store.stored_copies(["http://s.vn/c.htm"])["http://s.vn/c.htm"]["gone"] is True
    assert store.stored_article_urls("p") == ["http://s.vn/d.htm"]
    # an answer again (a revisit that found it) clears the mark
    revise(store, "http://s.vn/c.htm", art("http://s.vn/c.htm", "Bài bị gỡ"), source=("", "", ""))
    assert store.get_article(kept).gone_at is None


def test_a_database_of_an_older_xnews_gains_the_columns_and_keeps_its_articles(tmp_path):
    shutil.copy(SCHEMA4, tmp_path / "old.sqlite3")
    store = Store.open(tmp_path, path=tmp_path / "old.sqlite3")
    try:
        columns = {r[1] for r in store.db.execute_sql("PRAGMA table_info(article)").fetchall()}
        assert {"updated_at", "gone_at", "etag", "last_modified", "modified_at"} <= columns
        aid, created = store.store_article(art("http://s.vn/e.htm", "Mới"), "p")  # a raw INSERT without them
        assert created and store.get_article(aid).etag == ""
    finally:
        store.close()
