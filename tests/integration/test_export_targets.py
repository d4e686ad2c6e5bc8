"""Exports, as `main.py export` runs: no false success, only regular files, no formula cells, valid XML."""

from __future__ import annotations

import csv
import io
import os
import random
import resource
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import lxml.etree
import pytest

from xnews_gui.core.extraction.extract import Article
from xnews_gui.store import Store

from ..conftest import REPO

HOSTILE_TITLE = '=HYPERLINK("http://evil.test/","click")'


SYLLABLES = "một hai ba bốn năm sáu bảy tám chín mười người nước đường phố chợ trường học sinh".split()


def prose(seed: int, words: int) -> str:  # varied enough that an EPUB's deflate cannot shrink it to nothing
    rng = random.Random(seed)
    return " ".join(rng.choice(SYLLABLES) + rng.choice(("", "", str(rng.randint(0, 99)))) for _ in range(words))


@pytest.fixture
def data(tmp_path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    with Store.open(root) as store:
        for i, title in enumerate([HOSTILE_TITLE, "+1 lượt xem", "-ngắn", "@chủ đề", "\tTab đầu", "Tin\x01 thường\x0b"]):
            text = prose(i, 20_000)
            body = f"<p>Nội dung {i} \x02 với ký tự điều khiển.</p><p>{text}</p>"
            store.store_article(Article(url=f"http://news.test/a-{i}.htm", title=title, summary="Tóm\x1b tắt",
                                        author="@tác giả", body_html=body, body_text=f"Nội dung {i} {text}"),
                                "demo")
    return root


def run(data: Path, *args, limit_bytes: int | None = None) -> subprocess.CompletedProcess:
    def cap():  # a disk that fills up: writes past the limit fail with EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "export", *args],
                          capture_output=True, text=True, timeout=120, cwd=REPO,
                          preexec_fn=cap if limit_bytes else None)


@pytest.fixture
def device(tmp_path) -> Path:
    """A device-like target of our own (never the real /dev/full: a regression would replace it)."""
    path = tmp_path / "full"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # what /dev/full is, as root
    except (PermissionError, AttributeError):
        os.mkfifo(path)  # not root: a pipe is just as much "not a regular file"
    return path


@pytest.mark.parametrize("fmt", ["epub", "jsonl"])
def test_a_device_target_fails_with_exit_2_and_stays_a_device(data, device, fmt):
    before = os.stat(device)
    out = run(data, "--format", fmt, "-o", str(device))
    assert out.returncode == 2 and "not a regular file" in out.stderr and "exported" not in out.stderr, out.stderr
    after = os.stat(device)
    assert not stat.S_ISREG(after.st_mode) and after.st_ino == before.st_ino
    assert not Path(str(device) + ".part").exists()


def test_standard_output_on_a_full_device_fails_with_exit_2(data):
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "export",
                              "--format", "jsonl"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert out.returncode == 2 and "No space left" in out.stderr and "exported" not in out.stderr, out.stderr


@pytest.mark.parametrize("fmt", ["epub", "html"])
def test_a_disk_that_fills_up_fails_with_exit_2_and_leaves_nothing(data, tmp_path, fmt):
    target = tmp_path / f"out.{fmt}"
    out = run(data, "--format", fmt, "-o", str(target), limit_bytes=120_000)  # the smallest export (epub) is ~200 KB
    assert out.returncode == 2 and "exported" not in out.stderr, out.stderr
    assert "cannot write" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not target.exists() and not list(tmp_path.glob("*.part"))


def test_a_full_tmpfs_fails_with_exit_2(data, tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root?); the RLIMIT_FSIZE test covers a full disk")
    try:
        out = run(data, "--format", "epub", "-o", str(mount / "news.epub"))
        assert out.returncode == 2 and "No space left" in out.stderr, out.stderr
        assert list(mount.iterdir()) == []
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_part_file_left_by_a_killed_export_is_cleaned(data, tmp_path):
    target = tmp_path / "news.epub"
    stale = tmp_path / "news.epub.part"
    stale.write_bytes(b"half an epub")
    out = run(data, "--format", "epub", "-o", str(target))
    assert out.returncode == 0, out.stderr
    assert not stale.exists() and zipfile.is_zipfile(target)


def test_csv_cells_are_never_formulas(data, tmp_path):
    target = tmp_path / "news.csv"
    assert run(data, "--format", "csv", "-o", str(target)).returncode == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8-sig"))))
    titles = [r["title"] for r in rows]
    assert HOSTILE_TITLE not in titles and "'" + HOSTILE_TITLE in titles
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), value
    assert all(r["author"] == "'@tác giả" for r in rows)
    assert "Tin thường" in titles  # control characters dropped


def test_feeds_and_books_stay_valid_xml_with_control_characters(data, tmp_path):
    for fmt in ("rss", "atom"):
        target = tmp_path / f"news.{fmt}"
        assert run(data, "--format", fmt, "-o", str(target)).returncode == 0
        root = lxml.etree.parse(str(target)).getroot()
        assert b"\x01" not in target.read_bytes() and len(root.xpath("//*[local-name()='title']")) >= 6
    book = tmp_path / "news.epub"
    assert run(data, "--format", "epub", "-o", str(book)).returncode == 0
    with zipfile.ZipFile(book) as z:
        for name in z.namelist():
            if name.endswith((".xhtml", ".opf", ".xml")):
                lxml.etree.fromstring(z.read(name))  # raises on invalid XML
