"""Files named on the command line or in a profile: regular files only, size-capped, samples kept in their folder."""

from __future__ import annotations

import json
import os
import time

import pytest

from xnews_gui.cli import main
from xnews_gui.core.disk.files import MAX_PROFILE_BYTES, FileRefused, file_inside, read_file

from ..conftest import PROFILES


@pytest.fixture
def cli(data_dir, capsys):
    def run(*argv):
        start = time.monotonic()
        code = main(["--data-dir", str(data_dir), *argv])
        out, err = capsys.readouterr()
        assert time.monotonic() - start < 60, "a refused file must not be read first"
        return code, out, err

    yield run


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)  # nobody writes to it: opening it for reading the ordinary way would block for ever
    return path


def demo(**changes) -> dict:
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def test_extract_refuses_devices_and_pipes(cli, fifo):
    for target in ("/dev/zero", str(fifo)):
        code, out, err = cli("extract", "--profile", "demo", target)
        assert code == 2 and "not a regular file" in err and out == "", err


def test_extract_refuses_a_page_over_the_cap(cli, tmp_path):
    big = tmp_path / "big.html"
    with open(big, "wb") as f:
        f.truncate(6 * 1024 * 1024)
    code, _, err = cli("extract", "--profile", "demo", str(big))
    assert code == 2 and "at most" in err


@pytest.mark.parametrize("sample, message", [
    ("../../etc/passwd", "leads outside"),
    ("/etc/passwd", "must be a path relative"),
    ("/dev/zero", "must be a path relative"),
])
def test_a_self_test_sample_stays_in_the_profile_folder(cli, tmp_path, sample, message):
    data = demo(name="evil")
    data["self_test"]["file"] = sample
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = cli("profiles", "import", str(path))
    assert code == 2 and message in err, err
    code, out, err = cli("profiles", "check", str(path))
    assert code == 2 and message in err and "root:" not in out, err


def test_a_sample_that_is_a_pipe_or_a_link_to_a_device_is_not_read(cli, tmp_path):
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "zero.html").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "samples" / "pipe.html")
    for sample, message in (("samples/zero.html", "leads outside"), ("samples/pipe.html", "not a regular file")):
        data = demo(name="special")
        data["self_test"]["file"] = sample
        path = tmp_path / "special.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        code, _, err = cli("profiles", "check", str(path))
        assert code == 2 and message in err, err


def test_profile_and_conf_imports_refuse_special_and_huge_files(cli, tmp_path, fifo):
    for command in (("profiles", "import"), ("import-conf",), ("profiles", "check")):
        code, _, err = cli(*command, str(fifo) if command[-1] != "check" else str(fifo) + ".json")
        assert code == 2, (command, err)
    code, _, err = cli("profiles", "import", "/dev/zero")
    assert code == 2 and "not a regular file" in err
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps(demo(description="x" * MAX_PROFILE_BYTES)), encoding="utf-8")
    code, _, err = cli("profiles", "import", str(huge))
    assert code == 2 and "may be at most" in err


def test_read_file_and_file_inside(tmp_path, fifo):
    (tmp_path / "a.txt").write_bytes(b"12345")
    assert read_file(tmp_path / "a.txt", 5) == b"12345"
    with pytest.raises(FileRefused, match="at most 4"):
        read_file(tmp_path / "a.txt", 4)
    with pytest.raises(FileRefused, match="not a regular file"):
        read_file(fifo, 10)
    with pytest.raises(IsADirectoryError):
        read_file(tmp_path, 10)
    assert file_inside(tmp_path, "a.txt") == (tmp_path / "a.txt").resolve()
    (tmp_path / "out").symlink_to("/etc")
    with pytest.raises(FileRefused, match="leads outside"):
        file_inside(tmp_path, "out/passwd")


def test_classify_refuses_a_device_and_a_huge_number_is_one_line(tmp_path):
    """`classify MODEL /dev/zero` is refused without reading it; an id past SQLite's range is one error line."""
    import subprocess
    import sys

    from ..conftest import REPO

    def run(*args):
        return subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(tmp_path / "home"), *args],
                              capture_output=True, text=True, timeout=120)

    model = REPO / "resources" / "model" / "topic.npz"
    out = run("classify", str(model), "/dev/zero")
    assert out.returncode == 1, out.stderr
    assert "not a regular file" in out.stderr
    out = run("articles", "show", "99999999999999999999")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error:") and "Traceback" not in out.stderr
