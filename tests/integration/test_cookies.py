"""A members-only section: without cookies the crawl says it gets login pages; with the cookies a
browser kept (imported by the command line, file readable by the user only) its articles are stored."""

from __future__ import annotations

import json
import stat
import time

from xnews_gui.cli import main
from xnews_gui.crawl.cookies import CookieFile, cookies_path
from xnews_gui.demo.members import SESSION_COOKIE, SESSION_VALUE, stories
from xnews_gui.demo.site import DemoSite
from xnews_gui.store import Store

from ..conftest import PROFILES


def members_profile(tmp_path, base: str):
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    for key in ("self_test", "topics"):
        data.pop(key, None)
    data.update(name="demo-members", start_urls=[base + "/thanh-vien/"],
                links={"articles": {"kind": "css", "selector": "ul.member-list a", "allow": ["/thanh-vien/\\d+\\.htm$"]}})
    path = tmp_path / "demo-members.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def cli(data_dir, capsys, *argv):
    code = main(["--data-dir", str(data_dir), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_login_pages_are_reported_then_imported_cookies_open_the_section(tmp_path, data_dir, demo_server, capsys):
    base = demo_server.url.rstrip("/")
    profile = members_profile(tmp_path, base)
    crawl = ("crawl", "--profile", str(profile), "--no-images", "--no-raw")

    code, out, err = cli(data_dir, capsys, *crawl)
    assert "WARNING: 1 article page answered with a login form" in out and "import fresh cookies" in out
    assert "0 new articles" in out

    host = base.split("//", 1)[1].split(":", 1)[0]
    expiry = int(time.time()) + 30 * 24 * 3600
    jar = tmp_path / "cookies.txt"
    jar.write_text("# Netscape HTTP Cookie File\n"
                   f"{host}\tFALSE\t/\tFALSE\t{expiry}\t{SESSION_COOKIE}\t{SESSION_VALUE}\n"
                   f"#HttpOnly_.other.example\tTRUE\t/\tFALSE\t{expiry}\tsid\tnot-for-us\n", encoding="utf-8")
    code, out, err = cli(data_dir, capsys, "cookies", "import", "--profile", str(profile), str(jar))
    assert code == 0 and "2 cookies" in out and "readable by you only" in out
    kept = cookies_path(data_dir, "demo-members")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    code, out, _ = cli(data_dir, capsys, "cookies", "show", "--profile", str(profile))
    assert time.strftime("%Y-%m-%d", time.gmtime(expiry)) in out and "next expiry" in out

    code, out, err = cli(data_dir, capsys, *crawl, "--fresh")
    assert code == 0 and f"{len(stories(DemoSite()))} new articles" in out and "WARNING" not in out
    assert "sending the profile's cookies: 2 cookies" in out
    with Store.open(data_dir) as store:
        titles = {a["title"] for a in store.articles_in_order()}
    assert titles == {a.title for a in stories(DemoSite())}

    code, out, _ = cli(data_dir, capsys, "cookies", "clear", "--profile", str(profile))
    assert code == 0 and not kept.exists()


def test_cookies_match_host_path_scheme_and_expiry():
    now = 1_800_000_000
    jar = CookieFile(CookieFile.import_text(json.dumps([
        {"name": "a", "value": "1", "domain": ".bao.vn", "path": "/", "expires": now + 60},
        {"name": "b", "value": "2", "domain": "bao.vn", "path": "/tin/", "secure": True},
        {"name": "old", "value": "x", "domain": "bao.vn", "expires": now - 1},
    ])))
    assert jar.header_for("https://bao.vn/tin/1.htm", now) == "b=2; a=1"
    assert jar.header_for("http://bao.vn/tin/1.htm", now) == "a=1"  # secure: https only
    assert jar.header_for("https://m.bao.vn/", now) == "a=1"  # only the dotted domain covers subdomains
    assert jar.header_for("https://khac.vn/", now) == ""
    assert "1 expired" in jar.summary(now)


def test_cookies_that_could_break_a_request_or_be_lost_are_refused_with_the_reason(cli, tmp_path):
    """A CR LF in a cookie's value went out as a header of its own on every request; cookies past the 300th were
    dropped without a word (a login cookie among them); a file nested too deeply ended in a traceback."""
    def imported(rows_or_text) -> tuple:
        path = tmp_path / "c.json"
        path.write_text(rows_or_text if isinstance(rows_or_text, str) else json.dumps(rows_or_text))
        return cli("cookies", "import", "--profile", "demo", str(path))

    code, _, err = imported([{"name": "sid", "value": "abc\r\nX-Injected: yes", "domain": "127.0.0.1"}])
    assert code == 2 and "cookie 1: its value holds a control character" in err and "X-Injected" not in err
    code, _, err = imported([{"name": "s id", "value": "a", "domain": "127.0.0.1"}])
    assert code == 2 and "cookie 1: its name is not a cookie name" in err
    many = [{"name": f"c{i}", "value": "v", "domain": "127.0.0.1"} for i in range(301)]
    code, _, err = imported(many + [{"name": "login", "value": "s", "domain": "news.example"}])
    assert code == 2 and "the file holds 302 cookies, at most 300" in err
    code, _, err = imported("[" * 200_000)
    assert code == 2 and "nested too deeply" in err and "Traceback" not in err
    code, out, err = imported([{"name": "sid", "value": "a b", "domain": "127.0.0.1"}])  # a space: browsers keep it
    assert code == 0, err
