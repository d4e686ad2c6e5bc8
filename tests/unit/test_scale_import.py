"""`import-items`: worker JSON lines into a real SQLite store, deduplicated, searchable, checked."""

from __future__ import annotations

import json





def item(n: int, **changes) -> dict:
    data = {"url": f"http://news.example/the-thao/bai-{n}.htm", "title": f"Đội tuyển thắng trận {n}",
            "summary": "Tóm tắt.", "image": "", "body_html": f"<p>Bóng đá hôm nay, trận số {n}.</p>",
            "body_text": f"Bóng đá hôm nay, trận số {n}.", "author": "", "date": "2026-11-28T14:55:00+07:00",
            "topic": "The thao", "confidence": 0.9, "section": "The thao", "profile": "worker-site"}
    data.update(changes)
    return data


def write_lines(path, rows) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")


def test_items_become_articles_once_each(cli, data_dir, tmp_path):
    first, second = tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"
    write_lines(first, [item(1), item(2, body_html="<p>Hai <script>alert(1)</script>bàn thắng.</p>", body_text="")])
    # the same article from another worker, its URL written differently: one article
    write_lines(second, [item(1, url="HTTP://News.Example/the-thao/bai-1.htm#top"), item(3, profile=None)])
    code, out, err = cli("import-items", str(first), str(second), "--profile", "other")
    assert code == 0, err
    assert "3 new article(s), 1 already stored, 0 line(s) skipped" in out
    code, out, _ = cli("search", "bong da")  # full-text search, without diacritics
    assert code == 0 and out.count("\n") == 2
    from xnews_gui.store import Store

    store = Store.open(data_dir)
    try:
        rows = {a.url: a for a in store.list_articles(limit=100)}
    finally:
        store.close()
    two = rows["http://news.example/the-thao/bai-2.htm"]
    assert "script" not in two.body_html and "alert" not in two.body_html and two.body_text == "Hai bàn thắng."
    one = rows["http://news.example/the-thao/bai-1.htm"]
    assert (one.profile, one.category, one.confidence, one.section_label) == ("worker-site", "The thao", 0.9, "The thao")
    assert rows["http://news.example/the-thao/bai-3.htm"].profile == "other"
    # importing again changes nothing
    code, out, _ = cli("import-items", str(first))
    assert code == 0 and "0 new article(s), 2 already stored" in out


def test_bad_lines_are_reported_and_the_good_ones_kept(cli, tmp_path):
    path = tmp_path / "items.jsonl"
    huge = json.dumps(item(7)).replace('"confidence": 0.9', '"confidence": 1' + "0" * 400)
    write_lines(path, ["{not json", "[1, 2]", item(1, url="ftp://x/y"), item(2, title=""), item(3, confidence="high"),
                       item(4, profile="../etc"), item(5), huge, "[" * 200_000, item(6, confidence=1.5), item(8)])
    code, out, err = cli("import-items", str(path))
    assert code == 1 and "Traceback" not in err, err
    # a 400-digit confidence and a line nested 200,000 deep lost the whole import (good lines before them too)
    assert "2 new article(s), 0 already stored, 9 line(s) skipped" in out, (out, err)
    for where in ("items.jsonl:1: not a JSON line", "items.jsonl:2: not a JSON object", "items.jsonl:3: bad url",
                  "items.jsonl:4: no title", "items.jsonl:5: confidence", "items.jsonl:6: no profile name",
                  "items.jsonl:8: confidence is not a number from 0 to 1", "items.jsonl:9: not a JSON line (nested too deeply)",
                  "items.jsonl:10: confidence is not a number from 0 to 1"):
        assert where in err
    code, _, err = cli("import-items", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "file not found" in err
