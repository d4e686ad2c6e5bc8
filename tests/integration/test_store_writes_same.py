"""The crawl's sink stores the rows one article at a time would: every column (ids and near-duplicate
groups included), the same answers and the same search results, also when a batch has to fall back to
one article at a time, and with articles waiting for their group from elsewhere."""

from __future__ import annotations

import random

from xnews_gui.core.extraction.extract import Article
from xnews_gui.core.text.text import pieces
from xnews_gui.store import Store
from xnews_gui.store.sink import StoreSink

from ..conftest import shared_data
from ..unit.test_neardup import SITE_A, SITE_B, syndicated

COLUMNS = ("id, profile, url, title, summary, image_url, body_html, body_text, author, published, content_hash, "
           "category, confidence, user_label, section_label, read, starred, run_id, dup_sig, dup_size, dup_group")


def _texts() -> list[str]:
    folder = shared_data("vntc", "sample", "Test_Full")
    return [p.read_text(encoding="utf-16") for topic in ("The thao", "Kinh doanh", "Suc khoe")
            for p in sorted((folder / topic).glob("*.txt"))[:14]]


def _article(url: str, title: str, body: str) -> Article:
    html = "".join(f"<p>{line}</p>" for line in body.splitlines())
    return Article(url=url, title=title, summary=body[:80], body_html=html, body_text=body, author="Tác giả",
                   date="2024-05-01", image=f"{url}.jpg")


def _batches() -> list[list[tuple]]:
    """A crawl's batches: stories, copies of them on other pages (near-duplicates, later and in the same
    batch), the same text under another URL, URLs seen before and twice in a batch, short bodies, a
    skipped topic, and one batch the multi-row INSERT cannot answer (a stored URL with a new text
    whose text also comes under a new URL): it falls back to one article at a time."""
    rng = random.Random(11)
    texts = _texts()
    rows = []
    for n, text in enumerate(texts):
        copy_a, copy_b = syndicated(text)
        topic = rng.choice(["Thể thao", "Kinh doanh", None, "Giải trí"])
        rows.append((_article(f"https://a.vn/tin-{n}.htm", f"Tin {n}", copy_a), topic, 0.5 + n / 100, "muc"))
        if n % 3 == 0:
            rows.append((_article(f"https://b.vn/bai-{n}.htm", f"Bài {n}", copy_b), None, None, None))
        if n % 7 == 2:
            rows.append((_article(f"https://c.vn/x-{n}.htm", f"Tin {n}", copy_a), "Kinh doanh", 0.9, None))
        if n % 5 == 1:
            rows.append((_article(f"https://a.vn/ngan-{n}.htm", f"Ngắn {n}", "Tin ngắn: bão đổ bộ"), None, None, None))
        if n % 6 == 4:
            rows.append((_article(f"https://a.vn/tin-{n}.htm?utm_source=x", f"Lại {n}", SITE_B[0] + text), None, None, None))
    rng.shuffle(rows)
    rows += [(_article(f"https://d.vn/{n}.htm", f"Lần nữa {n}", "\n".join(SITE_A + [texts[n]])), None, None, None)
             for n in range(0, len(texts), 4)]
    batches, at = [], 0
    while at < len(rows):
        size = rng.choice([1, 3, 17, 40])
        batches.append(rows[at:at + size])
        at += size
    new_story = [p.read_text(encoding="utf-16") for p in sorted(
        shared_data("vntc", "sample", "Test_Full", "Van hoa").glob("*.txt"))[:1]][0]
    batches.insert(0, [(_article("https://e.vn/cu.htm", "Cũ", texts[5]), None, None, None)])
    batches.append([(_article("https://e.vn/cu.htm", "Tin 0 sửa", "Bản sửa\n" + texts[5]), None, None, None),
                    (_article("https://e.vn/sua-0.htm", "Tin 0 sửa", "Bản sửa\n" + texts[5]), None, None, None),
                    (_article("https://e.vn/moi.htm", "Mới", syndicated(new_story)[1]), None, None, None)])
    batches.append([(_article("https://e.vn/sau.htm", "Sau", syndicated(new_story)[0] + "\nThêm"), None, None, None)])
    return batches


def _rows(store: Store) -> list[tuple]:
    return store.db.execute_sql(f"SELECT {COLUMNS} FROM article ORDER BY id").fetchall()


SEARCHES = ("bóng đá", "kinh doanh", "dd", "Tin 1", "thêm", "sua", "Ngắn")


def _store(path, batched: bool, cut: bool = False) -> tuple[list, list, dict]:
    """(answers, article rows, search results) of the batches written by the crawl's sink
    (``batched``; ``cut``: given each body's pieces, as the crawl's pipeline gives them) or one
    article at a time, each batch then grouped (the sink's way before)."""
    store = Store.open(path)  # one open store at a time: peewee's models are bound to the last one
    sink = StoreSink(store, "site", skip_categories={"Giải trí"})
    # an article stored another way, waiting for its group
    store.store_article(_article("https://z.vn/0.htm", "Trước", syndicated(_texts()[3])[1]), "other")
    sink.start_run()
    answers = []
    for batch in _batches():
        if batched and cut:
            answers.extend(sink.write_batch(batch, body_pieces=[pieces(row[0].body_text or "") for row in batch]))
        elif batched:
            answers.extend(sink.write_batch(batch))
        else:
            answers.extend(sink._store_one(*row) for row in batch)
            store.group_duplicates()
    found = {words: store.search_ids(words) for words in SEARCHES}
    rows = _rows(store)
    store.close()
    return answers, rows, found


def test_batches_store_the_rows_and_groups_single_writes_do(tmp_path):
    answers, rows, found = _store(tmp_path / "batched", batched=True)
    assert not any(isinstance(a, BaseException) for a in answers)
    assert (answers, rows, found) == _store(tmp_path / "single", batched=False)
    groups = [r[-1] for r in rows]
    assert len(rows) > 50 and None not in groups and len(set(groups)) < len(rows) - 10  # near-duplicates found
    assert sum(r[-3] is None for r in rows) >= 3  # short bodies: no signature
    assert found["kinh doanh"] and found["Tin 1"]


def test_batches_given_their_bodies_cut_store_the_same_rows(tmp_path):
    assert _store(tmp_path / "cut", batched=True, cut=True) == _store(tmp_path / "text", batched=True)


def test_a_crawls_groups_are_the_groups_of_grouping_afterwards(tmp_path):
    """Grouping while storing = grouping everything once stored (a fresh index, oldest first)."""
    store = Store.open(tmp_path / "data")
    sink = StoreSink(store, "site")
    for batch in _batches():
        sink.write_batch(batch)
    stored = _rows(store)
    store.db.execute_sql("UPDATE article SET dup_sig = NULL, dup_size = NULL, dup_group = NULL")
    store.close()
    again = Store.open(tmp_path / "data")
    assert again.group_duplicates() == len(stored)
    assert _rows(again) == stored
    assert [r[0] for r in stored] == list(range(1, len(stored) + 1))
    again.close()
