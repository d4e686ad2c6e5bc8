"""The command line, as a user runs it: real data folder, real SQLite, real local servers."""

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from xnews_gui.cli import main
from xnews_gui.store import Store

from ..conftest import PROFILES, REPO



def test_help_lists_the_subcommands():
    out = subprocess.run([sys.executable, str(REPO / "main.py"), "--help"], capture_output=True, text=True,
                         check=True).stdout
    for name in ("profiles", "import-conf", "extract", "crawl", "articles", "search", "export", "demo-site"):
        assert name in out


def test_bundled_profiles_are_listed_shown_and_checked(cli, tmp_path):
    code, out, _ = cli("profiles", "list")
    assert code == 0 and out.startswith("demo\t")
    code, out, _ = cli("profiles", "show", "demo")
    assert json.loads(out)["name"] == "demo"
    code, out, _ = cli("profiles", "check", "demo")
    assert code == 0 and "6/6 fields ok" in out
    target = tmp_path / "out.json"
    assert cli("profiles", "export", "demo", "-o", str(target))[0] == 0
    assert json.loads(target.read_text(encoding="utf-8"))["fields"]["title"]["selector"] == "h1.article-title"


def test_import_and_check_reports_broken_fields(cli, tmp_path):
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    data["name"] = "broken"
    data["fields"]["author"]["selector"] = ".byline-that-does-not-exist"
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "demo-article.html").write_bytes((PROFILES / "samples" / "demo-article.html").read_bytes())
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert cli("profiles", "import", str(path))[0] == 0
    code, out, _ = cli("profiles", "check", "broken")
    assert code == 1
    assert "author   empty" in out and "5/6 fields ok" in out


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"schema": 1, "name": ', "not valid JSON"),
        ('{"schema": 7, "name": "x", "start_urls": ["http://a/"]}', "unsupported schema version 7"),
        ('{"schema": 1, "name": "x", "start_urls": ["http://a/"], "fields": {"title": {"selector": "h1[["}}}',
         "fields.title: invalid CSS selector"),
    ],
)
def test_bad_profile_files_are_refused_with_one_line(cli, tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = cli("profiles", "import", str(path))
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file_and_unknown_profile(cli, tmp_path):
    code, _, err = cli("profiles", "import", str(tmp_path / "nope.json"))
    assert code == 2 and "file not found" in err
    code, _, err = cli("extract", "--profile", "nope", str(tmp_path / "x.html"))
    assert code == 2 and "no profile named 'nope'" in err


def test_unwritable_data_dir(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code = main(["--data-dir", str(blocker / "sub"), "profiles", "list"])
    err = capsys.readouterr().err
    assert code == 2 and "not writable" in err


def test_extract_a_file_and_a_url(cli, demo_server):
    sample = PROFILES / "samples" / "demo-article.html"
    code, out, _ = cli("extract", "--profile", "demo", "--url", demo_server.url + "x/a-1.htm", str(sample))
    data = json.loads(out)
    assert code == 0 and data["author"] == "Quốc Bảo" and data["image"].startswith(demo_server.url)
    from xnews_gui.demo import DemoSite

    path = DemoSite().articles[3].path
    code, out, _ = cli("extract", "--profile", "demo", demo_server.url.rstrip("/") + path)
    assert code == 0 and json.loads(out)["title"] == DemoSite().articles[3].title


class _NotHtml(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"%PDF-1.4 not html"
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_extract_refuses_a_non_html_response(cli):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotHtml)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        code, _, err = cli("extract", "--profile", "demo", f"http://127.0.0.1:{server.server_address[1]}/doc")
    finally:
        server.shutdown()
        server.server_close()
    assert code == 2 and "is not an HTML page (not HTML: application/pdf)" in err


class _Recording(BaseHTTPRequestHandler):
    """/a.htm: a small article page; /moved: a redirect to it; /big: over the crawler's page cap."""

    seen: list = []

    def do_GET(self):
        type(self).seen.append((self.path, dict(self.headers)))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/a.htm")
            self.end_headers()
            return
        from xnews_gui.crawl.fetcher import FetchLimits

        body = (b"<html><body><h1 class='article-title'>Tin nhanh</h1><div class='article-body'><p>"
                + (b"x" * (FetchLimits().max_bytes + 1) if self.path == "/big" else b"Noi dung") + b"</p></div>")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_extract_url_fetches_as_the_crawler_does(cli):
    from xnews_gui.crawl.engine import DEFAULT_USER_AGENT

    _Recording.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recording)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        code, out, err = cli("extract", "--profile", "demo", base + "/moved")
        big = cli("extract", "--profile", "demo", base + "/big")
    finally:
        server.shutdown()
        server.server_close()
    assert json.loads(out)["title"] == "Tin nhanh", err  # the redirect was followed
    (first, headers), (second, _) = _Recording.seen[:2]
    assert (first, second) == ("/moved", "/a.htm")
    assert headers["User-Agent"] == DEFAULT_USER_AGENT  # the crawler's, not a second one
    assert headers["Accept-Encoding"] == "gzip, deflate" and headers["Accept"].startswith("text/html")
    assert big[0] == 2 and "cannot fetch" in big[2] and "cap" in big[2]  # the crawler's size cap


def test_extract_refuses_other_schemes(cli):
    code, _, err = cli("extract", "--profile", "demo", "file:///etc/passwd")
    assert code == 2  # neither fetched as a URL nor read as a path
    assert "extract fetches http:// and https:// pages, or reads a local file by its path" in err


def test_import_conf_errors_are_clear(cli, tmp_path):
    bad = tmp_path / "x.conf"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    code, _, err = cli("import-conf", str(bad))
    assert code == 2 and "not an xnews.conf: the file holds binary data" in err
    bad.write_text("3\nhttp://a.vn/\n~x~\n", encoding="utf-8")
    code, _, err = cli("import-conf", str(bad))
    assert code == 2 and "announces 3 source(s)" in err


def test_demo_site_command_serves_pages():
    proc = subprocess.Popen([sys.executable, str(REPO / "main.py"), "demo-site", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split(" at ", 1)[1].split()[0]
        import requests

        page = requests.get(url, timeout=10)
        assert page.status_code == 200 and "Tin mới nhất" in page.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_articles_search_and_export(cli, data_dir, tmp_path):
    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.profile.profile import Profile
    from xnews_gui.demo import DemoSite

    cli("profiles", "list")  # opens the database in the data folder
    store = Store.open(data_dir)
    site = DemoSite()
    profile = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    for a in site.articles[:6]:
        store.store_article(extract(site.render(a.path)[2], "http://127.0.0.1:8765" + a.path, profile), "demo")
    code, out, _ = cli("articles", "list", "--limit", "3")
    assert code == 0 and len(out.splitlines()) == 3
    first_id = int(out.splitlines()[-1].split("\t")[0])
    code, out, _ = cli("articles", "show", str(first_id))
    assert json.loads(out)["title"] in {a.title for a in site.articles[:6]}
    code, _, err = cli("articles", "show", "99999")
    assert code == 2 and "no article with id 99999" in err
    word = site.articles[0].title.split()[0]
    code, out, err = cli("search", word)
    assert code == 0 and site.articles[0].title in out
    target = tmp_path / "a.jsonl"
    assert cli("export", "--format", "jsonl", "-o", str(target))[0] == 0
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6 and all(r["body_text"] for r in rows)
    code, out, _ = cli("export", "--format", "csv")
    assert out.splitlines()[0].startswith("id,profile,url,title") and len(out.splitlines()) >= 7


def test_export_feed_and_book_formats(cli, data_dir, tmp_path):
    import zipfile
    from xml.etree import ElementTree as ET

    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.profile.profile import Profile
    from xnews_gui.demo import DemoSite

    cli("profiles", "list")
    store = Store.open(data_dir)
    site = DemoSite()
    profile = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    for a in site.articles[:3]:
        store.store_article(extract(site.render(a.path)[2], "http://127.0.0.1:8765" + a.path, profile), "demo")
    code, _, err = cli("export", "--format", "epub")
    assert code == 2 and "add -o FILE" in err
    assert cli("export", "--format", "rss", "-o", str(tmp_path / "f.xml"))[0] == 0
    assert len(ET.parse(tmp_path / "f.xml").getroot().findall("./channel/item")) == 3
    assert cli("export", "--format", "epub", "-o", str(tmp_path / "b.epub"))[0] == 0
    with zipfile.ZipFile(tmp_path / "b.epub") as book:
        assert book.namelist()[0] == "mimetype"
    # without --format the name says the format; a name that says another one is refused, nothing written
    code, _, err = cli("export", "-o", str(tmp_path / "n.csv"))
    assert code == 0 and err.strip().endswith(f"as CSV to {tmp_path / 'n.csv'}")
    assert (tmp_path / "n.csv").read_text(encoding="utf-8-sig").startswith("id,profile,url,title")
    assert cli("export", "-o", str(tmp_path / "n.epub"))[0] == 0 and zipfile.is_zipfile(tmp_path / "n.epub")
    assert cli("export", "-o", str(tmp_path / "n.json"))[0] == 0  # a .json name: JSON Lines, as before
    assert json.loads((tmp_path / "n.json").read_text(encoding="utf-8").splitlines()[0])["title"]
    code, _, err = cli("export", "--format", "jsonl", "-o", str(tmp_path / "x.csv"))
    assert code == 2 and "the name 'x.csv' says CSV, but --format says jsonl" in err
    code, _, err = cli("export", "-o", str(tmp_path / "x.dat"))
    assert code == 2 and "cannot tell the format from the name 'x.dat'" in err and "--format" in err
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "x.dat").exists()
    assert cli("export", "--format", "atom", "-o", str(tmp_path / "a.xml"))[0] == 0
    assert ET.parse(tmp_path / "a.xml").getroot().tag.endswith("feed")  # .xml: the feed --format names


def test_crawl_refuses_a_second_crawl_of_the_same_profile(cli, data_dir, demo_server, tmp_path):
    from xnews_gui.crawl.state import CrawlState

    profile = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    profile["start_urls"] = [demo_server.url]
    profile.pop("self_test")  # its sample lies beside the bundled file, not this copy
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    assert cli("profiles", "import", str(path))[0] == 0
    running = CrawlState(data_dir / "crawl" / "demo.sqlite3")  # as a crawl in another process would
    try:
        code, _, err = cli("crawl", "--profile", "demo", "--quiet")
    finally:
        running.close()
    assert code == 2 and "a crawl of 'demo' is already running" in err
    code, out, _ = cli("crawl", "--profile", "demo", "--quiet", "--no-images")
    assert code == 0 and "72 new articles" in out


def test_crawl_that_fetches_nothing_fails(cli, tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    profile = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    profile.update(name="nowhere", start_urls=[f"http://127.0.0.1:{port}/"])
    profile.pop("self_test")
    path = tmp_path / "nowhere.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    assert cli("profiles", "import", str(path))[0] == 0
    code, _, err = cli("crawl", "--profile", "nowhere", "--quiet")
    assert code == 1 and "nothing could be fetched from the start URLs (robots.txt unreachable" in err, err


def test_crawl_of_a_profile_starting_at_an_article_is_refused(cli, demo_server, tmp_path):
    profile = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    article = demo_server.url + "thoi-su/quoc-hoi-yeu-cau-day-nhanh-tien-do-giai-phong-mat-bang-tai-nha-trang-1001.htm"
    profile.update(name="wrong-start", start_urls=[article])
    profile["links"].pop("lists")
    profile.pop("self_test")
    path = tmp_path / "wrong-start.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    assert cli("profiles", "import", str(path))[0] == 0
    code, out, err = cli("crawl", "--profile", "wrong-start", "--quiet", "--no-images")
    assert code == 1 and "crawl refused" in out + err and "is an article, not a list page" in err


def test_crawl_of_a_profile_whose_rules_no_longer_fit_fails_with_exit_1(cli, demo_server, tmp_path):
    profile = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    profile.update(name="changed-site", start_urls=[demo_server.url])
    profile["fields"]["title"]["selector"] = "h1.headline-of-the-new-template"
    profile["crawl"]["max_pages"] = 8
    profile.pop("self_test")
    path = tmp_path / "changed-site.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    assert cli("profiles", "import", str(path))[0] == 0
    code, out, err = cli("crawl", "--profile", "changed-site", "--quiet", "--no-images")
    assert code == 1, out + err
    assert "error: crawl failed: no article could be extracted" in err

def test_imported_profile_finds_its_sample_beside_its_file(cli, tmp_path):
    folder = tmp_path / "mine"
    (folder / "samples").mkdir(parents=True)
    (folder / "samples" / "own.html").write_bytes((PROFILES / "samples" / "demo-article.html").read_bytes())
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    data.update(name="mine")
    data["self_test"]["file"] = "samples/own.html"
    (folder / "mine.json").write_text(json.dumps(data), encoding="utf-8")
    assert cli("profiles", "import", str(folder / "mine.json"))[0] == 0
    code, out, _ = cli("profiles", "import", str(folder / "mine.json"))  # again: it says what it replaced
    assert code == 0 and "it replaces the stored one, kept in `profiles history mine`" in out
    code, out, _ = cli("profiles", "check", "mine")
    assert code == 0 and "6/6 fields ok" in out
    data["self_test"]["file"] = "samples/missing.html"
    (folder / "bad.json").write_text(json.dumps(dict(data, name="bad")), encoding="utf-8")
    code, _, err = cli("profiles", "import", str(folder / "bad.json"))
    assert code == 2 and "self_test file 'samples/missing.html' not found" in err


def test_export_to_a_missing_folder_or_a_folder_is_refused(cli, tmp_path):
    cli("profiles", "list")
    code, _, err = cli("export", "--format", "csv", "-o", str(tmp_path / "typo" / "x.csv"))
    assert code == 2 and "does not exist" in err and not (tmp_path / "typo").exists()
    code, _, err = cli("export", "--format", "csv", "-o", str(tmp_path))
    assert code == 2 and "is a folder" in err
    (tmp_path / "all.epub").write_bytes(b"an earlier export")
    code, _, err = cli("export", "-o", str(tmp_path / "all.epub" / "x.csv"))
    assert code == 2 and f"{tmp_path / 'all.epub'} is a file, not a folder" in err, err


@pytest.mark.slow
def test_a_database_another_process_holds_gives_one_line_not_a_traceback(tmp_path):
    """The store waits 10 s for a writer that holds the database, then said nothing but a traceback."""
    import sqlite3

    home = tmp_path / "home"
    assert subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(home), "profiles", "list"],
                          capture_output=True).returncode == 0
    holder = sqlite3.connect(str(home / "xnews.sqlite3"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        profile = tmp_path / "p.json"
        data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
        data.pop("self_test", None)
        profile.write_text(json.dumps(dict(data, name="mine")), encoding="utf-8")
        out = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(home), "profiles", "import",
                              str(profile)], capture_output=True, text=True, timeout=120)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("error: the database is busy: another XNews")


def test_a_database_error_reads_as_words():
    import sqlite3

    import peewee

    from xnews_gui.errors import describe, describe_database_error

    assert describe(peewee.OperationalError("database is locked")).startswith("the database is busy")
    assert "damaged" in describe(sqlite3.DatabaseError("database disk image is malformed"))
    assert describe(peewee.OperationalError("database or disk is full")).endswith("the disk is full")
    assert describe_database_error(ValueError("locked")) is None
