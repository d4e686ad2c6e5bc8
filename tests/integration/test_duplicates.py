"""Near-duplicates in a real SQLite store: grouped across profiles, counted, hidden, skipped by export."""

from __future__ import annotations

import json

from xnews_gui.cli import main
from xnews_gui.core.extraction.extract import Article
from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.store.queries import ArticleFilter
from xnews_gui.store.sink import StoreSink

from ..conftest import shared_data
from ..unit.test_neardup import SITE_A, syndicated


def article(url: str, title: str, body: str) -> Article:
    html = "".join(f"<p>{line}</p>" for line in body.splitlines())
    return Article(url=url, title=title, body_html=html, body_text=body)


def vntc(topic: str, n: int) -> list[str]:
    folder = shared_data("vntc", "sample", "Test_Full", topic)
    return [p.read_text(encoding="utf-16") for p in sorted(folder.glob("*.txt"))[:n]]


def test_syndicated_copies_are_one_story_with_sources(store, data_dir, capsys):
    story, other, later = vntc("Phap luat", 3)
    copy_a, copy_b = syndicated(story)
    ids = {}
    ids["a"] = store.store_article(article("https://a.vn/tin-1.htm", "Tin A", copy_a), "site-a")[0]
    ids["other"] = store.store_article(article("https://a.vn/tin-2.htm", "Khác", "\n".join(SITE_A + [other])), "site-a")[0]
    assert store.group_duplicates() == 2
    # later, on another site: the same story, then a third copy; grouping goes on incrementally
    ids["b"] = store.store_article(article("https://b.vn/bai-9.htm", "Tin B", copy_b), "site-b")[0]
    ids["c"] = store.store_article(article("https://c.vn/c-3.htm", "Tin C", story), "site-c")[0]
    ids["later"] = store.store_article(article("https://c.vn/c-4.htm", "Sau", later), "site-c")[0]
    assert store.group_duplicates() == 3 and store.group_duplicates() == 0

    rows = store.rows_by_id(list(ids.values()))
    sources = {k: rows[i][-1] for k, i in ids.items()}
    assert sources == {"a": 3, "b": 3, "c": 3, "other": 1, "later": 1}
    assert [p for _, p, _ in store.story_sources(ids["b"])] == ["site-a", "site-b", "site-c"]

    shown = [i for _, i in store.ordered_keys(ArticleFilter(hide_duplicates=True), sort="title")]
    assert sorted(shown) == sorted([ids["a"], ids["other"], ids["later"]])
    assert len(store.ordered_keys(ArticleFilter())) == 5

    # reading a story's copy does not bring its other copies back under "Unread" (nor do new arrivals)
    unread_one = ArticleFilter(hide_duplicates=True, unread_only=True)
    assert sorted(i for _, i in store.ordered_keys(unread_one)) == sorted([ids["a"], ids["other"], ids["later"]])
    store.set_flags(ids["a"], read=True)
    assert sorted(i for _, i in store.ordered_keys(unread_one)) == sorted([ids["other"], ids["later"]])
    assert store.ordered_keys(unread_one, only_ids=[ids["b"], ids["c"], ids["later"]]) != [] and \
        [i for _, i in store.ordered_keys(unread_one, only_ids=[ids["b"], ids["c"], ids["later"]])] == [ids["later"]]
    store.set_flags(ids["a"], read=False)

    exported = [a["url"] for a in store.articles_in_order(skip_duplicates=True)]
    assert exported == ["https://a.vn/tin-1.htm", "https://a.vn/tin-2.htm", "https://c.vn/c-4.htm"]

    store.close()
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl", "--skip-duplicates"])
    out, err = capsys.readouterr()
    assert code == 0 and [json.loads(line)["url"] for line in out.splitlines()] == exported
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl"])
    out, err = capsys.readouterr()
    assert code == 0 and len(out.splitlines()) == 5

    # one site's articles, one per story: site-c's copy is its first of the story, though site-a stored it first
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl", "--profile", "site-c", "--skip-duplicates"])
    out, err = capsys.readouterr()
    assert code == 0 and [json.loads(line)["url"] for line in out.splitlines()] == [
        "https://c.vn/c-3.htm", "https://c.vn/c-4.htm"], err
    title_word = copy_b.split()[0]
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl", "--profile", "site-b",
                 "--skip-duplicates", "--query", title_word])
    out, err = capsys.readouterr()
    assert code == 0 and [json.loads(line)["url"] for line in out.splitlines()] == ["https://b.vn/bai-9.htm"], err


def test_an_export_query_takes_its_limit_from_the_profile_s_matches(store, data_dir, capsys):
    # the best matches of the whole store belong to another site: the limit is taken after the profile
    for n in range(6):
        site = "alpha" if n % 2 else "beta"
        store.store_article(article(f"https://{site}.vn/{n}.htm", f"Bóng đá {n}",
                                    "bóng đá bóng đá " * (10 - n) + f"tin {site} số {n}"), site)
    store.close()
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl", "--query", "bóng",
                 "--profile", "alpha", "--limit", "2"])
    out, err = capsys.readouterr()
    urls = [json.loads(line)["url"] for line in out.splitlines()]
    assert code == 0 and len(urls) == 2 and all("alpha" in u for u in urls), (urls, err)
    code = main(["--data-dir", str(data_dir), "export", "--format", "jsonl", "--query", "bóng -beta",
                 "--limit", "5"])
    out, err = capsys.readouterr()
    assert code == 0 and len(out.splitlines()) == 3, err


def test_two_sites_with_the_same_stories_are_grouped_by_the_crawl(store, demo_server, demo_profile, tmp_path):
    # the demo site under two names (127.0.0.1 and localhost) is two sites carrying the same 72 stories
    port = demo_server.url.rsplit(":", 1)[1].strip("/")
    twin = demo_profile.with_(name="demo-twin", start_urls=(f"http://localhost:{port}/",),
                              allowed_domains=("localhost",), discovery=("sitemap",), lists=None)
    first = demo_profile.with_(discovery=("sitemap",), lists=None)
    for profile in (first, twin):
        sink = StoreSink(store, profile.name)
        sink.start_run()
        summary = Crawler(profile, sink, state_dir=tmp_path / "crawl",
                          options=CrawlOptions(fetch_images=False, save_raw=False)).run()
        sink.finish_run(summary)
        assert summary["articles"] == 72
    groups = {}
    for url, group in store.db.execute_sql("SELECT url, dup_group FROM article").fetchall():
        groups.setdefault(url.split("/", 3)[3], set()).add(group)
    assert len(groups) == 72 and all(len(g) == 1 for g in groups.values())  # each twin with its original
    rows = store.rows_by_id([i for _, i in store.ordered_keys(ArticleFilter())])
    assert len(rows) == 144 and all(r[-1] >= 2 for r in rows.values())
    shown = store.rows_by_id([i for _, i in store.ordered_keys(ArticleFilter(hide_duplicates=True))])
    assert {r[1] for r in shown.values()} == {"demo"}  # the first stored of each story
    assert sum(r[-1] for r in shown.values()) == 144


def test_the_index_keeps_the_newest_window_whatever_the_appends(monkeypatch):
    import numpy as np

    from xnews_gui.store import duplicates

    monkeypatch.setattr(duplicates, "WINDOW", 100)
    index, added = duplicates._Index(), []
    rng = np.random.default_rng(7)
    next_id = 1
    for n in list(rng.integers(1, 9, size=60)) + [150, 1, 2, 37]:  # one at a time, batches, more than a window
        ids = np.arange(next_id, next_id + n)
        next_id += n
        sigs = rng.integers(0, 2**31, size=(n, duplicates.neardup.PERMUTATIONS)).astype(np.uint32)
        if n == 1 and next_id % 2:  # the crawl's way: one article at a time
            index.add_one(int(ids[0]), int(ids[0]) * 10, int(ids[0]) + 5, sigs[0])
        else:
            index.add(ids, ids * 10, ids + 5, sigs)
        added += [(i, s) for i, s in zip(ids, sigs)]
        newest = added[-100:]
        assert list(index.ids) == [i for i, _ in newest]
        assert list(index.groups) == [i * 10 for i, _ in newest] and list(index.sizes) == [i + 5 for i, _ in newest]
        assert np.array_equal(index.sigs, np.stack([s for _, s in newest]))
        assert np.array_equal(index.fingerprints, np.stack([s for _, s in newest]).T & 0xFF)
