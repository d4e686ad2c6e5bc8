"""Bad input to the command line, as a user types it: folders for files, empty files, the wrong JSON,
impossible numbers. Each gets one clear error line and exit code 2 (per-file problems of a batch: 1),
before any slow work starts."""

from __future__ import annotations

import json
import time

import pytest

from xnews_gui.cli import main

from ..conftest import REPO

MODEL = REPO / "resources" / "model" / "topic.npz"


@pytest.fixture
def run(data_dir, capsys):
    """run(*argv) -> (exit code, stderr); argparse's own exits included."""

    def go(*argv):
        try:
            code = main(["--data-dir", str(data_dir), *map(str, argv)])
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, err

    return go


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("options, says", [
    (["--C", "-1"], "--C must be a number above 0 (got -1)"),
    (["--C", "0"], "--C must be a number above 0"),
    (["--C", "nan"], "--C must be a number above 0"),
    (["--test-fraction", "2"], "--test-fraction must lie between 0 and 1"),
    (["--test-fraction", "0"], "--test-fraction must lie between 0 and 1"),
    (["--min-df", "0"], "--min-df must be at least 1"),
    (["--max-features", "-5"], "--max-features must be 0 (keep all terms) or more"),
])
def test_train_checks_its_options_before_reading_any_corpus(run, tmp_path, options, says):
    # the corpus does not even exist: the option is what is reported, at once
    code, err = run("train", "--corpus", tmp_path / "no-corpus", *options)
    assert code == 2 and says in one_line(err)


def test_train_options_of_the_wrong_type_and_a_missing_corpus(run, tmp_path):
    code, err = run("train", "--corpus", tmp_path, "--C", "abc")
    assert code == 2 and "argument --C: invalid float value: 'abc'" in one_line(err)
    assert "xnews train --help" in err
    code, err = run("train", "--corpus", tmp_path / "no-corpus")
    assert code == 2 and "no corpus at" in one_line(err)


def test_import_items_of_a_folder_says_it_is_a_folder(run, tmp_path):
    (tmp_path / "items").mkdir()
    code, err = run("import-items", tmp_path / "items")
    assert code == 2 and "is a folder: give the JSON-lines files in it" in one_line(err)
    code, err = run("import-items", tmp_path / "missing.jsonl")
    assert code == 2 and "file not found" in one_line(err)


def test_cookies_import_says_what_the_file_is(run, tmp_path):
    obj = tmp_path / "state.json"
    obj.write_text(json.dumps({"name": "sid", "value": "1"}))
    code, err = run("cookies", "import", "--profile", "demo", obj)
    assert code == 2 and 'a JSON object without a "cookies" list' in one_line(err)
    code, err = run("cookies", "import", "--profile", "demo", tmp_path)
    assert code == 2 and "is a folder, not a file" in one_line(err)
    code, err = run("cookies", "import", "--profile", "demo", tmp_path / "nope.txt")
    assert code == 2 and "file not found" in one_line(err)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "a", "value": "b", "domain": "x.vn", "expirationDate": "soon"}]))
    code, err = run("cookies", "import", "--profile", "demo", bad)
    assert code == 2 and "cookie 1: the expiry is not a number" in one_line(err)


def test_cookies_import_reads_playwright_state_and_extension_exports(run, tmp_path, data_dir):
    from xnews_gui.crawl.cookies import CookieFile, cookies_path

    later = time.time() + 86400
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"cookies": [
        {"name": "sid", "value": "1", "domain": ".tin.vn", "path": "/", "expires": -1, "secure": True},
        {"name": "consent", "value": "yes", "domain": "tin.vn", "expirationDate": later}], "origins": []}))
    code, err = run("cookies", "import", "--profile", "demo", state)
    assert code == 0, err
    jar = CookieFile.load(cookies_path(data_dir, "demo"))
    assert [(c.name, c.expires) for c in jar.cookies] == [("sid", 0.0), ("consent", later)]


def test_classify_a_folder_without_text_files_says_so(run, tmp_path):
    (tmp_path / "empty").mkdir()
    code, err = run("classify", MODEL, tmp_path / "empty")
    assert code == 1 and "a folder with no .txt file in it" in one_line(err)


def test_a_folder_or_an_empty_file_as_a_profile(run, tmp_path):
    code, err = run("crawl", "--profile", tmp_path, "--quiet")
    assert code == 2 and "is a folder: give a stored profile's name or a profile JSON file" in one_line(err)
    empty = tmp_path / "p.json"
    empty.write_text("  \n")
    code, err = run("crawl", "--profile", empty, "--quiet")
    assert code == 2 and "is empty: expected a profile (JSON)" in one_line(err)
    code, err = run("profiles", "import", empty)
    assert code == 2 and "is empty" in one_line(err)


def test_demo_site_dump_onto_a_file(run, tmp_path):
    target = tmp_path / "pages.txt"
    target.write_text("x")
    code, err = run("demo-site", "--dump", target)
    assert code == 2 and "exists and is not a folder" in one_line(err)


@pytest.mark.parametrize("argv, says", [
    (["articles", "list", "--limit", "-1"], "argument --limit: '-1' is not a whole number >= 0"),
    (["articles", "list", "--limit", "0"], "argument --limit: '0' must be at least 1"),
    (["search", "vàng", "--limit", "0"], "argument --limit: '0' must be at least 1"),
    (["export", "--limit", "-3"], "argument --limit: '-3' is not a whole number >= 0"),
    (["crawl", "--profile", "demo", "--max-pages", "-1"], "argument --max-pages: '-1' is not a whole number >= 0"),
    (["crawl", "--profile", "demo", "--render-pages", "9"], "argument --render-pages: '9': 1 to 4 offscreen pages"),
])
def test_negative_and_zero_counts_are_refused_in_one_line(run, argv, says):
    code, err = run(*argv)
    assert code == 2 and says in one_line(err)


def test_extract_names_what_it_takes(run, tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<html><h1>x</h1></html>")
    code, err = run("extract", "--profile", "demo", "ftp://example.vn/a.htm")
    assert code == 2 and "extract fetches http:// and https:// pages, or reads a local file" in one_line(err)
    code, err = run("extract", "--profile", "demo", "--url", "bai-viet.htm", page)
    assert code == 2 and "--url 'bai-viet.htm': give the page's http:// or https:// address" in one_line(err)


def test_a_write_into_a_missing_folder_names_the_folder(run, tmp_path):
    code, err = run("profiles", "export", "demo", "-o", tmp_path / "nowhere" / "demo.json")
    assert code == 2 and f"{tmp_path / 'nowhere'} does not exist" in one_line(err)


@pytest.mark.parametrize("command", [("profiles", "export", "demo"), ("export-conf", "vnexpress.net")])
def test_a_profile_written_to_a_pipe_is_refused_at_once(run, tmp_path, command):
    import os
    import threading

    assert run("import-conf", REPO / "tests" / "data" / "xnews.conf")[0] == 0
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    # a reader, so that a command that writes into the pipe ends instead of hanging the test
    got = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()), daemon=True)
    reader.start()
    code, err = run(*command, "-o", pipe)
    assert code == 2 and "it is not a regular file" in one_line(err)
    with open(pipe, "wb"):  # let the reader end
        pass
    reader.join(5)
    assert got == [b""]
    target = tmp_path / "demo.out"
    target.write_text("kept", encoding="utf-8")
    code, _ = run(*command[:-1], "no-such-profile", "-o", target)
    assert code == 2 and target.read_text(encoding="utf-8") == "kept" and not list(tmp_path.glob("*.part"))


def test_an_empty_search_and_binary_inputs(run, tmp_path):
    code, err = run("search", "  ")
    assert code == 2 and "give the words to search for" in one_line(err)
    code, err = run("export", "--query", " ")
    assert code == 2 and "--query is empty" in one_line(err)
    binary = tmp_path / "cookies.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    code, err = run("cookies", "import", "--profile", "demo", binary)
    assert code == 2 and "holds binary data" in one_line(err)
    code, err = run("import-items", binary)
    assert code == 1 and "not UTF-8 text" in err


def test_a_file_as_the_data_folder(tmp_path, capsys):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    code = main(["--data-dir", str(blocker), "profiles", "list"])
    err = capsys.readouterr().err
    assert code == 2 and f"the data folder {blocker} is a file, not a folder" in one_line(err)


def test_a_profile_or_export_written_to_a_symlink_goes_through_it(run, tmp_path):
    kept = tmp_path / "dotfiles"
    kept.mkdir()
    for name, command in (("demo.json", ("profiles", "export", "demo")), ("all.jsonl", ("export", "--format", "jsonl"))):
        (kept / name).write_text("old", encoding="utf-8")
        link = tmp_path / name
        link.symlink_to(kept / name)
        code, err = run(*command, "-o", link)
        if command[0] == "export":
            assert code == 1 and "nothing to export" in err  # an empty store: nothing written, the link kept
            assert link.is_symlink() and (kept / name).read_text(encoding="utf-8") == "old"
            continue
        assert code == 0, err
        assert link.is_symlink() and json.loads((kept / name).read_text(encoding="utf-8"))["name"] == "demo"
