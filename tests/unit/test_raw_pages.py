"""Raw page packs: what is written reads back byte for byte; torn tails, roll-over, old single files,
and references from an imported database that try to leave the raw folder."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from tests.conftest import shared_data
from xnews_gui.core.disk import raw_tidy
from xnews_gui.core.disk.raw_pages import RawPack, RawPageError, read_raw, scan_pack


def real_pages(count: int) -> list[tuple[str, bytes]]:
    pages = sorted(shared_data("cleanportaleval", "input").glob("*.html"))[:count]
    return [(f"https://example.org/{p.stem}.html", p.read_bytes()) for p in pages]


def test_pages_read_back_byte_for_byte_from_one_pack(tmp_path):
    pages = real_pages(5) + [("https://example.org/empty", b""), ("https://example.org/tiết-mục?q=1", b"\x00\xffXNRE")]
    with RawPack(tmp_path) as pack:
        refs = [pack.save(url, body) for url, body in pages]
    assert len({ref.split("#")[0] for ref in refs}) == 1  # one pack for the crawl
    assert [read_raw(tmp_path, ref) for ref in refs] == [body for _, body in pages]
    pack_file = next((tmp_path / "packs").glob("*.pack"))
    assert list(scan_pack(pack_file)) == [(url, ref) for (url, _), ref in zip(pages, refs)]


def test_threads_saving_at_once_never_mix_their_pages(tmp_path):
    pack = RawPack(tmp_path, max_bytes=300_000)
    results: dict[str, str] = {}

    def save(n: int) -> None:
        for i in range(40):
            url = f"https://example.org/{n}/{i}"
            results[url] = pack.save(url, (url.encode() + b"|") * (500 + 37 * i))

    threads = [threading.Thread(target=save, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pack.close()
    assert len(results) == 240
    for url, ref in results.items():
        assert read_raw(tmp_path, ref) == (url.encode() + b"|") * (500 + 37 * int(url.rsplit("/", 1)[1]))


def test_a_pack_rolls_over_past_its_size_cap(tmp_path):
    body = b"x" * 40_000
    with RawPack(tmp_path, max_bytes=100_000) as pack:
        refs = [pack.save(f"https://example.org/{i}", body) for i in range(7)]
        big = pack.save("https://example.org/big", b"y" * 250_000)  # larger than a pack: a pack of its own
    packs = sorted((tmp_path / "packs").glob("*.pack"))
    assert len(packs) == 5 and all(p.stat().st_size <= 100_000 for p in packs if p.name not in big)
    assert len({r.split("#")[0] for r in refs}) == 4
    assert all(read_raw(tmp_path, r) == body for r in refs) and read_raw(tmp_path, big) == b"y" * 250_000


def test_a_torn_tail_is_ignored_and_the_pages_before_it_still_read(tmp_path):
    (url1, body1), (url2, body2) = real_pages(2)
    with RawPack(tmp_path) as pack:
        first = pack.save(url1, body1)
        second = pack.save(url2, body2)
    pack_file = next((tmp_path / "packs").glob("*.pack"))
    with open(pack_file, "r+b") as handle:  # a crash in the middle of the second page's write
        handle.truncate(pack_file.stat().st_size - 1000)
    assert read_raw(tmp_path, first) == body1
    assert list(scan_pack(pack_file)) == [(url1, first)]
    with pytest.raises(RawPageError, match="cut short or damaged"):
        read_raw(tmp_path, second)
    with open(pack_file, "ab") as handle:  # garbage after a whole record
        handle.write(b"\0" * 5000)
    assert list(scan_pack(pack_file)) == [(url1, first)]


def test_a_failed_write_leaves_no_half_record(tmp_path, monkeypatch):
    with RawPack(tmp_path) as pack:
        first = pack.save("https://example.org/1", b"a" * 1000)

        def full_disk(fd, parts):
            os.write(fd, b"".join(parts)[:100])
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(os, "writev", full_disk)
        with pytest.raises(OSError):
            pack.save("https://example.org/2", b"b" * 1000)
        monkeypatch.undo()
        third = pack.save("https://example.org/3", b"c" * 1000)
    pack_file = next((tmp_path / "packs").glob("*.pack"))
    assert [url for url, _ in scan_pack(pack_file)] == ["https://example.org/1", "https://example.org/3"]
    assert read_raw(tmp_path, first) == b"a" * 1000 and read_raw(tmp_path, third) == b"c" * 1000


def test_old_single_file_names_still_read(tmp_path):
    url, body = real_pages(1)[0]
    digest = hashlib.md5(url.encode()).hexdigest()
    name = f"{digest[:2]}/{digest}.html"
    (tmp_path / digest[:2]).mkdir()
    (tmp_path / name).write_bytes(body)
    assert read_raw(tmp_path, name) == body
    missing = hashlib.md5(b"other").hexdigest()
    with pytest.raises(RawPageError, match="missing"):
        read_raw(tmp_path, f"{missing[:2]}/{missing}.html")


def test_missing_pack_and_wrong_offsets_say_so(tmp_path):
    with RawPack(tmp_path) as pack:
        ref = pack.save("https://example.org/1", b"a" * 1000)
    name, span = ref.split("#")
    offset, length = map(int, span.split("+"))
    with pytest.raises(RawPageError, match="missing"):
        read_raw(tmp_path, f"packs/nothing.pack#{offset}+{length}")
    for wrong in (f"{name}#{offset + 1}+{length}", f"{name}#{offset}+{length - 1}", f"{name}#{offset}+{length + 1}",
                  f"{name}#0+3", f"{name}#{offset}+999999999"):
        with pytest.raises(RawPageError):
            read_raw(tmp_path, wrong)


@pytest.mark.parametrize("ref", [
    "", "../secret.html", "/etc/passwd", "packs/../../secret.pack#0+20", "packs/../secret.pack#0+20",
    "packs/.hidden.pack#0+20", "packs/sub/x.pack#0+20", "packs/x.pack#-1+20", "packs/x.pack#0+20/../../y",
    "ab/../../" + "0" * 32 + ".html", "AB/" + "0" * 32 + ".html", "packs\\..\\x.pack#0+20", "packs/x.pack",
    "packs/x.pack#0+20\n", "file:///etc/passwd",
])
def test_references_that_are_not_raw_pages_are_refused(tmp_path, ref):
    raw = tmp_path / "raw"
    raw.mkdir()
    (tmp_path / "secret.html").write_bytes(b"secret")
    with pytest.raises(RawPageError, match="not a raw page reference"):
        read_raw(raw, ref)


def test_links_out_of_the_raw_folder_are_not_followed(tmp_path):
    raw = tmp_path / "raw"
    with RawPack(raw) as pack:
        ref = pack.save("https://example.org/1", b"a" * 100)
    outside = tmp_path / "outside.pack"
    outside.write_bytes((raw / "packs" / ref.split("#")[0].split("/")[1]).read_bytes())
    (raw / "packs" / "linked.pack").symlink_to(outside)
    with pytest.raises(RawPageError, match="outside"):
        read_raw(raw, "packs/linked.pack#" + ref.split("#")[1])
    digest = "0" * 32
    (raw / "00").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / f"{digest}.html").write_bytes(b"secret")
    with pytest.raises(RawPageError, match="outside"):
        read_raw(raw, f"00/{digest}.html")
    (raw / "ff").mkdir()
    os.mkfifo(raw / "ff" / f"{'f' * 32}.html")
    with pytest.raises(RawPageError, match="not a regular file"):
        read_raw(raw, f"ff/{'f' * 32}.html")


def packs_in(raw) -> list[str]:
    return sorted(p.name for p in (raw / "packs").glob("*.pack"))


def test_tidy_drops_dead_pages_and_copies_the_live_ones_of_a_mostly_dead_pack(tmp_path, monkeypatch):
    monkeypatch.setattr(raw_tidy, "SMALL_PACK", 0)  # the dead-share rule alone
    pages = real_pages(5)
    with RawPack(tmp_path) as first:
        old = {url: first.save(url, body) for url, body in pages}
    with RawPack(tmp_path) as second:  # three pages crawled again: their first copies are dead
        rows = dict(old, **{url: second.save(url, body) for url, body in pages[:3]})
    with RawPack(tmp_path) as third:
        gone = third.save("https://example.org/gone", b"a page whose row points elsewhere now")
    first_pack, second_pack, third_pack = (r.split("#")[0].split("/")[1] for r in (old[pages[0][0]], rows[pages[0][0]], gone))
    tidy = raw_tidy.tidy_packs(tmp_path, lambda: list(rows.values()))
    assert set(tidy.moved) == {old[url] for url, _ in pages[3:]}  # the first pack's live pages, copied
    assert sorted(tidy.emptied) == sorted([first_pack, third_pack]) and tidy.freed_bytes > 0
    assert first_pack in packs_in(tmp_path)  # nothing deleted before the rows are stored
    rows = {url: tidy.moved.get(ref, ref) for url, ref in rows.items()}
    tidy.finish()
    assert first_pack not in packs_in(tmp_path) and third_pack not in packs_in(tmp_path)
    assert second_pack in packs_in(tmp_path) and len(packs_in(tmp_path)) == 2
    assert {url: read_raw(tmp_path, ref) for url, ref in rows.items()} == dict(pages)


def test_tidy_merges_small_packs_and_a_cancelled_tidy_loses_nothing(tmp_path):
    pages = real_pages(4)
    rows = {}
    for url, body in pages:  # four short crawls: four small packs
        with RawPack(tmp_path) as pack:
            rows[url] = pack.save(url, body)
    assert len(packs_in(tmp_path)) == 4
    cancelled = raw_tidy.tidy_packs(tmp_path, lambda: list(rows.values()))
    assert len(cancelled.moved) == 4
    cancelled.cancel()  # the rows could not be updated: every old reference still reads
    assert {url: read_raw(tmp_path, ref) for url, ref in rows.items()} == dict(pages)
    tidy = raw_tidy.tidy_packs(tmp_path, lambda: list(rows.values()))
    rows = {url: tidy.moved[ref] for url, ref in rows.items()}
    tidy.finish()
    assert len(packs_in(tmp_path)) == 1  # the copies left by the cancelled one were dead, and went
    assert {url: read_raw(tmp_path, ref) for url, ref in rows.items()} == dict(pages)


def test_tidy_leaves_packs_being_written_alone(tmp_path):
    writing = RawPack(tmp_path, max_bytes=50_000)
    refs = [writing.save(f"https://example.org/{i}", b"p" * 30_000) for i in range(3)]  # rolled over twice
    asked = []
    tidy = raw_tidy.tidy_packs(tmp_path, lambda: asked.append(1) or [])  # no row points there yet
    tidy.finish()
    assert not tidy.moved and not tidy.emptied and not asked and len(packs_in(tmp_path)) == 3
    writing.close()
    assert all(read_raw(tmp_path, r) == b"p" * 30_000 for r in refs)
    tidy = raw_tidy.tidy_packs(tmp_path, lambda: refs[:1])  # closed now: the two packs nothing points to go
    tidy.finish()
    assert len(packs_in(tmp_path)) == 1 and read_raw(tmp_path, refs[0]) == b"p" * 30_000
