"""Crawls through proxies, with real HTTP and SOCKS5 proxy servers on 127.0.0.1 (tests/proxy_server.py): the
same articles as a direct crawl, images and rendered pages through the proxy too, a dead proxy in the list
skipped with a warning and nothing lost, user and password, and the settings kept in the data folder."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from xnews_gui.crawl.fetcher import Fetcher
from xnews_gui.crawl.proxies import ProxyConfig, ProxyError, ProxyList, check_proxy, mask
from xnews_gui.demo import load_more as demo_more
from xnews_gui.demo.site import DemoSite
from xnews_gui.store import Store

from ..conftest import REPO
from ..proxy_server import Proxy, dead_port
from .test_load_more import more_profile
from .test_watches import demo_profile_file


def stored(data_dir) -> dict[str, tuple]:
    with Store.open(data_dir) as store:
        return {a["url"]: (a["title"], a["body_text"], a["author"], a["date"]) for a in store.articles_in_order()}


def test_a_proxy_list_rotates_and_sets_a_failing_proxy_aside():
    now = [0.0]
    said = []
    proxies = ProxyList(["http://127.0.0.1:1", "socks5://u:p@127.0.0.1:2"], set_aside_s=60, on_warning=said.append,
                        clock=lambda: now[0])
    assert [proxies.pick() for _ in range(3)] == ["http://127.0.0.1:1", "socks5://u:p@127.0.0.1:2", "http://127.0.0.1:1"]
    proxies.failed("socks5://u:p@127.0.0.1:2", "connection refused")
    proxies.failed("socks5://u:p@127.0.0.1:2", "connection refused")  # said once per set-aside
    assert said == ["proxy socks5://u:***@127.0.0.1:2 failed (connection refused): set aside for 60 s; "
                    "1 other proxy takes its requests"]
    assert {proxies.pick() for _ in range(4)} == {"http://127.0.0.1:1"}
    proxies.failed("http://127.0.0.1:1", "timed out")
    assert proxies.pick() == "" and proxies.wait_s() == 60 and "no proxy is left" in said[-1]
    now[0] = 61.0
    assert proxies.pick() in ("http://127.0.0.1:1", "socks5://u:p@127.0.0.1:2")
    for bad in ("ftp://h:1", "http://host", "socks5://h:1/path", "http://h:99999", "h:1"):
        with pytest.raises(ProxyError):
            check_proxy(bad)
    assert mask("http://user:s3cret@h:3128") == "http://user:***@h:3128" and mask("socks5://h:1") == "socks5://h:1"


def test_the_proxies_file_is_for_the_user_only(tmp_path):
    config = ProxyConfig()
    config.set(["http://u:pw@127.0.0.1:3128"])
    config.set(["socks5://127.0.0.1:1080"], "demo")
    path = config.save(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = ProxyConfig.load(tmp_path)
    assert again.for_profile("demo") == (["socks5://127.0.0.1:1080"], "profile")
    assert again.for_profile("other") == (["http://u:pw@127.0.0.1:3128"], "all")
    path.write_text('{"all": ["gopher://x:1"]}')
    with pytest.raises(ProxyError):
        ProxyConfig.load(tmp_path)


@pytest.mark.parametrize("kind", ["http", "socks5"])
def test_the_fetcher_goes_through_a_proxy_with_a_password_and_not_with_a_wrong_one(demo_server, kind):
    with Proxy(kind, "người", "mật khẩu", hosts={"demo.test": "127.0.0.1"}) as proxy:
        port = demo_server.url.rsplit(":", 1)[1].rstrip("/")
        url = f"http://demo.test:{port}/robots.txt"  # a name only the proxy knows
        # the name is resolved by the proxy (socks5h: the SOCKS proxy resolves it; socks5 resolves here)
        quoted = proxy.url.replace("người:mật khẩu", "ng%C6%B0%E1%BB%9Di:m%E1%BA%ADt%20kh%E1%BA%A9u") \
            .replace("socks5://", "socks5h://")
        fetcher = Fetcher("XNews-test", proxies=ProxyList([quoted]))
        try:
            assert fetcher.get(url, accept="any").status == 200
        finally:
            fetcher.close()
        said = []
        wrong = Fetcher("XNews-test", proxies=ProxyList([quoted.split("//")[0] + "//người:sai@127.0.0.1:"
                                                        + str(proxy.port)], on_warning=said.append))
        try:
            with pytest.raises(Exception) as caught:
                wrong.get(url, accept="any")
        finally:
            wrong.close()
    assert "every proxy is set aside" in str(caught.value) and said and "set aside" in said[0]
    assert proxy.refused >= 1 and any("demo.test" in s for s in proxy.seen)


@pytest.mark.slow
def test_a_crawl_through_proxies_stores_what_a_direct_crawl_stores(cli, tmp_path, data_dir, demo_server):
    profile = demo_profile_file(tmp_path, demo_server)
    assert cli("crawl", "--profile", profile, "--no-raw")[0] == 0
    direct = stored(data_dir)
    assert len(direct) == 72

    second = tmp_path / "through-proxies"
    second.mkdir()
    dead = f"http://127.0.0.1:{dead_port()}"
    with Proxy("http", "u", "p") as http, Proxy("socks5", "u", "p") as socks:
        code, out, err = cli("--data-dir", str(second), "proxies", "set", dead, http.url, socks.url)
        assert code == 0 and "u:***@" in out and ":p@" not in out
        code, out, err = cli("--data-dir", str(second), "crawl", "--profile", profile, "--no-raw")
    assert code == 0, err
    assert stored(second) == direct  # the same articles, nothing lost to the dead proxy
    assert f"WARNING: proxy {dead} failed" in out and "set aside" in out and "crawling through 3 proxies" in out
    assert "errors:" not in out  # no page failed (the summary counts errors by kind when there are some)
    # both living proxies took their turns: the HTTP proxy sees each request (pages, images), the SOCKS
    # proxy each connection (kept alive: a tunnel serves many requests)
    assert len(http.seen) > 50 and any("/images/" in s for s in http.seen) and socks.seen
    code, out, err = cli("--data-dir", str(second), "profiles", "show", "demo")
    assert code == 0 and json.loads(out)["name"] == "demo"
    assert err.strip() == f"proxies: {dead}, {mask(http.url)}, {mask(socks.url)} (set for all crawls)"


@pytest.mark.slow
def test_the_render_pool_loads_more_through_the_proxy(tmp_path, demo_server):
    port = demo_server.url.rsplit(":", 1)[1].rstrip("/")
    profile = more_profile(f"http://demo.test:{port}", "xem-them", {"click": "button.xem-them"})
    profile["allowed_domains"] = ["demo.test"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profile, ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "data"
    with Proxy("http", "u", "p", hosts={"demo.test": "127.0.0.1"}) as proxy:
        config = ProxyConfig()
        config.set([proxy.url], "demo-xem-them")
        config.save(data)
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
        proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                               str(path), "--no-raw", "--delay", "0"], capture_output=True, text=True, env=env,
                              timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "60 new articles" in proc.stdout and "the profile's own" in proc.stdout
    assert len(stored(data)) == demo_more.STORIES == len(demo_more.stories(DemoSite()))
    # only the browser asks for the fragments "Xem thêm" adds; the crawler fetched the images
    assert any(s.endswith("/xem-them/trang-6.htm") for s in proxy.seen)
    assert any("/images/" in s for s in proxy.seen)


def test_a_proxies_file_that_does_not_parse_hides_its_password_and_can_be_cleared(cli, data_dir):
    """An address whose port does not parse was printed whole, password and all; and `proxies clear`, which the
    crawl's refusal names as the way out, failed on the very file it was to replace."""
    code, _, err = cli("proxies", "set", "http://alice:S3cretPW@proxy.example:99999")
    assert code == 2 and "S3cretPW" not in err and "alice:***@proxy.example" in err, err
    (data_dir / "proxies.json").write_text('{"all": ["http://alice:S3cretPW@proxy.example:70000"], "profiles": {}}')
    code, _, err = cli("crawl", "--profile", "demo", "--max-pages", "1")
    assert code == 2 and "S3cretPW" not in err and "proxies clear" in err, err
    code, _, err = cli("proxies", "set", "http://127.0.0.1:3128")
    assert code == 2 and "S3cretPW" not in err and "`proxies clear` starts the file again" in err, err
    code, out, err = cli("proxies", "clear")
    assert code == 0 and "none (direct connections)" in out, err
    assert "S3cretPW" not in (data_dir / "proxies.json").read_text()
