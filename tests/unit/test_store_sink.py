"""The crawl's sink writes a whole batch in one transaction with the same answers as one
article at a time: new, the same text under another URL, a URL stored before, a skipped topic."""

from __future__ import annotations

from xnews_gui.core.extraction.extract import Article
from xnews_gui.store.sink import StoreSink


def _article(url: str, title: str, body: str = "") -> Article:
    return Article(url=url, title=title, body_text=body or f"Nội dung của {title}", body_html="<p>x</p>")


def test_a_batch_answers_as_single_writes_would(store):
    sink = StoreSink(store, "site", skip_categories={"Giải trí"})
    first = sink.write_batch([(_article("http://a.vn/1.htm", "Một"), "Thời sự", 0.9, None)])
    assert first == [(first[0][0], True)]
    rows = [
        (_article("http://a.vn/2.htm", "Hai"), "Thể thao", 0.8, "the-thao"),            # new
        (_article("http://a.vn/3.htm", "Ba", "Cùng một nội dung"), None, None, None),    # new
        (_article("http://a.vn/4.htm", "Ba", "Cùng một nội dung"), None, None, None),    # same text as 3
        (_article("http://a.vn/1.htm", "Một"), "Thời sự", 0.9, None),                     # stored before
        (_article("http://a.vn/5.htm", "Một"), None, None, None),                         # same text as 1
        (_article("http://a.vn/6.htm", "Sáu"), "Giải trí", 0.7, None),                   # a skipped topic
    ]
    out = sink.write_batch(rows, pages=[("http://a.vn/2.htm", 200, "utf-8", "text/html", "", "article", "")])
    two, three, four, one_again, five, six = out
    assert two[1] is True and three[1] is True
    assert four == (three[0], False) and one_again == (first[0][0], False) and five == (first[0][0], False)
    assert six == (None, False)
    count = store.db.execute_sql("SELECT count(*) FROM article").fetchone()[0]
    assert count == 3
    assert store.db.execute_sql("SELECT category, section_label FROM article WHERE id = ?",
                                (two[0],)).fetchone() == ("Thể thao", "the-thao")
    assert store.is_known("http://a.vn/6.htm")  # remembered as seen, not stored
    assert store.db.execute_sql("SELECT status FROM page WHERE url = 'http://a.vn/2.htm'").fetchone() == (200,)


def test_finding_a_batchs_same_texts_reads_the_hash_index_not_every_article_of_the_profile(store):
    """With a batch's worth of hashes SQLite's planner walked the profile index (all of the profile's
    articles, through their bodies): reads grew with the square of the crawl."""
    from xnews_gui.store.sink import same_text_sql

    sink = StoreSink(store, "site")
    for start in range(0, 300, 60):
        sink.write_batch([(_article(f"http://a.vn/{i}.htm", f"Bài {i}"), None, None, None)
                          for i in range(start, start + 60)])
    hashes = [f"{i:040x}" for i in range(64)]
    for sql in (same_text_sql(64), same_text_sql(1)):
        params = ["site", *hashes[:sql.count("?") - 1]]
        plan = " ".join(str(row) for row in store.db.execute_sql("EXPLAIN QUERY PLAN " + sql, params))
        assert "article_content_hash" in plan and "article_profile" not in plan, plan
    known = store.db.execute_sql(same_text_sql(2), ["site", _article("u", "Bài 7").content_hash, "none"]).fetchall()
    assert known == [(_article("u", "Bài 7").content_hash, store.db.execute_sql(
        "SELECT id FROM article WHERE url = 'http://a.vn/7.htm'").fetchone()[0])]


def test_a_batchs_page_rows_are_the_rows_single_records_make(data_dir):
    """write_batch's page-log upsert (one prepared statement) leaves the rows Store.record_page would
    (the last row for a URL wins, same columns and formats), except that a page skipped for its topic
    stays marked skipped (how a re-crawl knows it)."""
    from xnews_gui.store import Store

    earlier = [("http://a.vn/skip.htm", 200, "", "", "", "skipped", "topic Giải trí is skipped"),
               ("http://a.vn/1.htm", 500, "", "", "", "article", "HTTP 500")]
    batch = [("http://a.vn/1.htm", 200, "utf-8", "text/html; charset=utf-8", "packs/a.pack#0+100", "article", ""),
             ("http://a.vn/", 200, "cp1258", "text/html", "packs/a.pack#100+50", "list", ""),
             ("http://a.vn/skip.htm", 200, "utf-8", "text/html", "packs/a.pack#150+70", "article", ""),
             ("http://a.vn/", 304, "utf-8", "text/html", "packs/a.pack#220+60", "list", "not modified"),
             ("http://a.vn/gone.htm", 404, "", "text/html", "", "article", "HTTP 404: Không tìm thấy")]
    tables = []
    for name, write in (("batch", lambda store: StoreSink(store, "site").write_batch([], pages=batch)),
                        ("single", lambda store: [store.record_page(*row) for row in batch])):
        with Store.open(data_dir / name) as store:
            for row in earlier:
                store.record_page(*row)
            write(store)
            rows = store.db.execute_sql("SELECT url, status, encoding, content_type, raw_path, kind, error, "
                                        "typeof(fetched_at), length(fetched_at) > 18 FROM page ORDER BY url").fetchall()
            tables.append(rows)
    single = [row[:5] + ("skipped",) + row[6:] if row[0] == "http://a.vn/skip.htm" else row for row in tables[1]]
    assert tables[0] == single
    by_url = {row[0]: row for row in tables[0]}
    assert by_url["http://a.vn/"][1] == 304 and by_url["http://a.vn/gone.htm"][6] == "HTTP 404: Không tìm thấy"
    assert by_url["http://a.vn/1.htm"][4] == "packs/a.pack#0+100" and len(tables[0]) == 4


def test_a_batchs_image_records_are_the_rows_single_records_make(data_dir):
    from xnews_gui.store import Store

    batch = [("http://a.vn/i/1.jpg", "ab" * 32, "image/jpeg", 51234, ""),
             ("http://a.vn/i/2.png", "", "", 0, "HTTP 404"),
             ("http://a.vn/i/1.jpg", "cd" * 32, "image/webp", 40000, ""),
             ("http://a.vn/i/3.gif",)]
    tables = []
    for name, write in (("batch", lambda store: StoreSink(store, "site").write_batch([], images=batch)),
                        ("single", lambda store: [store.record_image(*row) for row in batch])):
        with Store.open(data_dir / name) as store:
            store.record_image("http://a.vn/i/2.png", "ef" * 32, "image/png", 10)  # fetched before
            write(store)
            tables.append(store.db.execute_sql("SELECT url, sha256, content_type, size, error, typeof(size) "
                                               "FROM image_cache ORDER BY url").fetchall())
    assert tables[0] == tables[1] and len(tables[0]) == 3
    assert tables[0][0][1:4] == ("cd" * 32, "image/webp", 40000) and tables[0][1][4] == "HTTP 404"
