"""Scale-out end to end: the exported Scrapy project in a virtual environment without PySide6,
alone (parity with the desktop crawl) and as two workers sharing a real Redis server."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import subprocess
import threading
import time

import pytest

pytest.importorskip("scrapy", reason="Scrapy is not installed (pip install -e '.[test]')")

from tests.conftest import SHARED  # noqa: E402
from xnews_gui.classify.model import TopicClassifier  # noqa: E402
from xnews_gui.core.profile.profile import Profile  # noqa: E402
from xnews_gui.crawl import CrawlOptions, Crawler  # noqa: E402
from xnews_gui.crawl.sink import MemorySink  # noqa: E402
from xnews_gui.demo import DemoServer  # noqa: E402
from xnews_gui.paths import BUNDLED_MODEL  # noqa: E402

from ..conftest import PROFILES, REPO  # noqa: E402
from .scale_helpers import (LoggedDemoSite, RedisServer, copy_profile, early_gaps, export_project, free_port,  # noqa: E402
                            read_items, run_cluster, start_worker, venv_without_qt, wait_all, needs_redis, worker_env)

pytestmark = pytest.mark.slow

POLITE_DELAY = 0.1  # seconds between two requests to the site, over all workers
ROBOTS_DELAY = 0.3  # the Crawl-delay of the second demo site's robots.txt


class CrawlDelaySite(LoggedDemoSite):
    """The demo site whose robots.txt asks for a Crawl-delay."""

    def render(self, path: str, *args, **kwargs):
        status, ctype, body = super().render(path, *args, **kwargs)
        if path == "/robots.txt":
            body = body.replace(b"Disallow: /private/\n", f"Disallow: /private/\nCrawl-delay: {ROBOTS_DELAY}\n".encode())
        return status, ctype, body


@pytest.fixture(scope="module")
def site():
    logged = LoggedDemoSite()
    server = DemoServer(port=0, site=logged).start()
    yield server, logged
    server.stop()


@pytest.fixture(scope="module")
def delayed_site():
    logged = CrawlDelaySite()
    server = DemoServer(port=0, site=logged).start()
    yield server, logged
    server.stop()


SIMULATOR = SHARED / "bench" / "newsim.py"  # absent: the tests that crawl it skip (needs_simulator)


def needs_simulator(setup) -> None:
    if setup["newsim"] is None:
        pytest.skip(f"the site simulator is not here: {SIMULATOR}")


@pytest.fixture(scope="module")
def newsim():
    """The benchmark's site simulator (../shared/bench), small and slow enough for two workers."""
    if not SIMULATOR.is_file():
        yield None
        return
    proc = subprocess.Popen([sys.executable, str(SIMULATOR), "--port", "0", "--articles", "120", "--latency-ms", "100",
                             "--extra-kb", "8", "--duration", "600"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().split()[1]  # "newsim: http://127.0.0.1:PORT/  (...)"
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def newsim400():
    """The simulator with 400 articles and its feeds announced: sitemaps, feeds and links all reach them."""
    if not SIMULATOR.is_file():
        yield None
        return
    proc = subprocess.Popen([sys.executable, str(SIMULATOR), "--port", "0", "--articles", "400", "--latency-ms", "10",
                             "--extra-kb", "4", "--feeds", "--duration", "900"], stdout=subprocess.PIPE, text=True)
    yield proc.stdout.readline().split()[1]
    proc.terminate()
    proc.wait(10)


SIM_WAYS = {"newsim-links": ["links"], "newsim-sitemap": ["sitemap"], "newsim-feeds": ["feeds"]}


@pytest.fixture(scope="module")
def setup(site, delayed_site, newsim, newsim400, tmp_path_factory):
    """One exported project (profiles 'demo', 'demo-polite', 'demo-sitemap', 'demo-feeds', 'demo-robots'
    and, with the simulator, 'newsim'), one venv without PySide6 with the project's requirements
    installed, and the desktop crawls' articles."""
    server, _ = site
    folder = tmp_path_factory.mktemp("scale")
    fast = copy_profile(PROFILES / "demo.json", folder / "demo.json", start_urls=[server.url])
    polite = copy_profile(PROFILES / "demo.json", folder / "demo-polite.json", name="demo-polite",
                          start_urls=[server.url], crawl={"delay_s": POLITE_DELAY, "concurrency": 4})
    articles_only = {"articles": json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))["links"]["articles"]}
    by_sitemap = copy_profile(PROFILES / "demo.json", folder / "demo-sitemap.json", name="demo-sitemap",
                              start_urls=[server.url], discovery=["sitemap"], links=articles_only)
    by_feeds = copy_profile(PROFILES / "demo.json", folder / "demo-feeds.json", name="demo-feeds",
                            start_urls=[server.url], discovery=["feeds"], links=articles_only)
    robots = copy_profile(PROFILES / "demo.json", folder / "demo-robots.json", name="demo-robots",
                          start_urls=[delayed_site[0].url], crawl={"delay_s": 0, "concurrency": 4, "max_pages": 10})
    profiles = [fast, polite, by_sitemap, by_feeds, robots]
    sim_profile = REPO / "benchmarks" / "newsim_profile.json"
    if newsim400:  # one profile per way of finding the articles (no list links without "links")
        sim_articles = {"articles": json.loads(sim_profile.read_text(encoding="utf-8"))["links"]["articles"]}
        for name, ways in SIM_WAYS.items():
            profiles.insert(0, copy_profile(sim_profile, folder / f"{name}.json", name=name, start_urls=[newsim400],
                                            discovery=ways, crawl={"concurrency": 4},
                                            **({} if ways == ["links"] else {"links": sim_articles})))
    if newsim:
        profiles.append(copy_profile(sim_profile, folder / "newsim.json", start_urls=[newsim],
                                     crawl={"concurrency": 2}))
    (folder / "data").mkdir()
    project = export_project(folder, profiles, folder / "data")
    python = venv_without_qt(folder / "venv")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index",
                              "-r", "requirements.txt"], cwd=project, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    model = TopicClassifier.load(BUNDLED_MODEL)
    desktop = desktop_articles(fast, folder / "state", model)
    assert len(desktop) == 72
    sim = desktop_articles(profiles[-1], folder / "state-sim", model) if newsim else None
    return {"project": project, "python": python, "desktop": desktop, "folder": folder, "newsim": sim}


def desktop_articles(profile_file, state, model) -> dict:
    """The desktop crawl of a profile: {url: (article, topic, confidence)}."""
    profile = Profile.from_json(profile_file.read_text(encoding="utf-8"))
    sink = MemorySink()
    summary = Crawler(profile, sink, state_dir=state, classifier=model,
                      options=CrawlOptions(fetch_images=False, save_raw=False)).run()
    assert summary["status"] == "finished"
    return {row["article"].url: (row["article"], row["category"], row["confidence"]) for row in sink.articles}


@pytest.fixture
def redis_server(tmp_path):
    needs_redis()
    server = RedisServer(tmp_path)
    yield server
    server.stop()


def same_articles(items: list[dict], desktop: dict) -> None:
    urls = [i["url"] for i in items]
    assert len(urls) == len(set(urls)), "an article came twice"
    assert set(urls) == set(desktop)
    for item in items:
        article, topic, _ = desktop[item["url"]]
        assert (item["title"], item["body_text"]) == (article.title, article.body_text)
        assert item["topic"] == topic


def test_the_worker_has_no_qt(setup):
    python = setup["python"]
    probe = subprocess.run([str(python), "-c", "import PySide6"], capture_output=True, text=True, env=worker_env())
    assert probe.returncode != 0 and "No module named 'PySide6'" in probe.stderr
    where = subprocess.run([str(python), "-c", "import xnews_gui, os; print(os.listdir(os.path.dirname(xnews_gui.__file__)))"],
                           capture_output=True, text=True, cwd=setup["folder"], env=worker_env())
    shipped = set(where.stdout.strip().strip("[]").replace("'", "").split(", "))
    assert {"core", "classify", "scale"} <= shipped and not shipped & {"ui", "store", "cli.py"}


def test_local_mode_gives_the_desktop_crawls_articles(setup, tmp_path):
    out = tmp_path / "items.jsonl"
    proc = start_worker(setup["python"], setup["project"], "demo", out)
    wait_all([proc])
    log = out.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, log[-3000:]
    items = read_items(out)
    same_articles(items, setup["desktop"])
    for item in items:
        article, _, confidence = setup["desktop"][item["url"]]
        assert item["confidence"] == pytest.approx(confidence, abs=1e-9)
        assert (item["summary"], item["image"], item["author"], item["date"]) == \
            (article.summary, article.image, article.author, article.date)
    assert "'robotstxt/request_count': 1" in log  # robots.txt read (and obeyed: the site allows it)


def test_two_workers_share_one_frontier(setup, site, redis_server, tmp_path):
    _, logged = site
    start = len(logged.log)
    outs = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    run_cluster(setup, "demo-polite", redis_server.url, outs)
    first, second = (read_items(o) for o in outs)
    assert first and second, "both workers did work"
    assert not {i["url"] for i in first} & {i["url"] for i in second}
    same_articles(first + second, setup["desktop"])
    # each page fetched once over both workers, and the site's delay held over both of them
    pages = [(t, p) for t, p in logged.log[start:] if p != "/robots.txt"]
    paths = [p for _, p in pages]
    assert len(paths) == len(set(paths)) and {u.split("/", 3)[3] for u in setup["desktop"]} < {p[1:] for p in paths}
    gaps = [b[0] - a[0] for a, b in zip(pages, pages[1:])]
    # on the server's clock: on a loaded machine a process stalled for a moment can deliver one
    # request late, on top of the next; without the shared delay nearly every gap would be ~0
    close = [(pages[i][1], pages[i + 1][1], g) for i, g in early_gaps([t for t, _ in pages], POLITE_DELAY)]
    assert len(close) <= 3, f"requests too close: {close}"
    median, span = sorted(gaps)[len(gaps) // 2], pages[-1][0] - pages[0][0]
    assert median >= POLITE_DELAY * 0.95, f"median gap {median:.3f} s"
    assert span >= (len(pages) - 1) * POLITE_DELAY * 0.9, f"{len(pages)} requests in {span:.2f} s"


def test_two_workers_on_the_simulator(setup, redis_server, tmp_path):
    needs_simulator(setup)
    outs = [tmp_path / "s1.jsonl", tmp_path / "s2.jsonl"]
    run_cluster(setup, "newsim", redis_server.url, outs)
    first, second = (read_items(o) for o in outs)
    assert first and second, "both workers did work"
    assert not {i["url"] for i in first} & {i["url"] for i in second}
    assert len(setup["newsim"]) == 120
    same_articles(first + second, setup["newsim"])


@pytest.mark.parametrize("profile", list(SIM_WAYS))
def test_two_workers_find_every_article_by_links_sitemaps_or_feeds(setup, redis_server, tmp_path, cli, profile):
    """2 workers sharing Redis on the 400-article simulator: every article once over both, by link
    rules, by sitemaps only and by feeds only (a sitemap or feed request went through Redis and came
    back as a list page before, and the start page lost its flags: 0 of 400), then all 400 stored."""
    needs_simulator(setup)
    outs = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
    run_cluster(setup, profile, redis_server.url, outs)
    first, second = ({i["url"] for i in read_items(o)} for o in outs)
    assert not first & second, "an article was crawled by both workers"
    assert len(first | second) == 400 and first and second
    # the frontier said no to what was queued before (here or by the other worker): request_dropped fired
    logs = [o.with_suffix(".log").read_text(encoding="utf-8", errors="replace") for o in outs]
    assert sum(int(n) for log in logs for n in re.findall(r"'xnews/dropped': (\d+)", log)) > 0
    code, out, err = cli("import-items", *map(str, outs))
    assert code == 0, err
    assert "imported 400 new article(s), 0 already stored, 0 line(s) skipped" in out


def test_the_desktop_follows_a_cluster_crawl_live(setup, redis_server, tmp_path):
    """While 2 workers crawl the 400-article simulator, a follower drains their items from Redis into a
    real store as they come (the dashboard's card and chart get the same events as a desktop crawl)."""
    needs_simulator(setup)
    from xnews_gui.services.cluster import ClusterFollower
    from xnews_gui.store import Store

    events = []
    with Store.open(tmp_path / "data") as store:
        follower = ClusterFollower("newsim-links", redis_server.url, store,
                                   lambda ev: events.append((time.monotonic(), ev.kind, ev.data)), stats_interval=0.2)
        result = []
        thread = threading.Thread(target=lambda: result.append(follower.run()))
        thread.start()
        try:
            outs = [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"]
            run_cluster(setup, "newsim-links", redis_server.url, outs)
            workers_done = time.monotonic()
            thread.join(60)
        finally:
            follower.stop()
            thread.join(10)
        stored = {a.url for a in store.list_articles(limit=1000)}
    exported = {i["url"] for o in outs for i in read_items(o)}
    summary = result[0]
    assert summary["status"] == "finished" and summary["articles"] == 400 and summary["errors"] == 0
    assert stored == exported and len(stored) == 400
    articles = [t for t, kind, _ in events if kind == "article"]
    before_the_end = sum(t < workers_done for t in articles)  # stored while the workers were still crawling
    assert len(articles) == 400 and before_the_end >= 100, f"only {before_the_end} items came before the end"
    pages = [d["pages"] for _, kind, d in events if kind == "stats"]
    # the workers add their pages to the count once a second: a crawl of 430 pages can fit between two
    # beats, so the count is only required to grow and to end with every page
    assert pages == sorted(pages) and pages[-1] >= 400
    assert redis_server.client.llen("xnews:newsim-links:items") == 0


def kill_one_of_two_workers(setup, redis_server, tmp_path, profile: str) -> list[dict]:
    """Two workers; one killed with -9 in the middle of its work (items written, requests held), a third
    started in its place; every item of the three."""
    url = redis_server.url
    timeout = "XNEWS_WORKER_TIMEOUT=2"
    victim_out, other_out, again_out = tmp_path / "victim.jsonl", tmp_path / "other.jsonl", tmp_path / "again.jsonl"
    victim = start_worker(setup["python"], setup["project"], profile, victim_out, f"XNEWS_REDIS_URL={url}", timeout)
    other = start_worker(setup["python"], setup["project"], profile, other_out, f"XNEWS_REDIS_URL={url}", timeout)
    client = redis_server.client
    deadline = time.monotonic() + 90
    while True:  # kill it in the middle of its work: items written and requests held
        assert time.monotonic() < deadline and victim.poll() is None, "the first worker never got going"
        ids = [w.decode() for w in client.zrange(f"xnews:{profile}:workers", 0, -1) if f":{victim.pid}:".encode() in w]
        held = f"xnews:{profile}:inflight:{ids[0]}" if ids else None
        if held and len(read_items(victim_out)) >= 5 and client.hlen(held):
            os.kill(victim.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    victim.wait()
    assert client.hlen(held) > 0, "the killed worker held no request: the test proves nothing"
    again = start_worker(setup["python"], setup["project"], profile, again_out, f"XNEWS_REDIS_URL={url}", timeout)
    wait_all([other, again])
    assert (other.returncode, again.returncode) == (0, 0)
    assert redis_server.client.zcard(f"xnews:{profile}:queue") == 0
    return read_items(victim_out) + read_items(other_out) + read_items(again_out)


def test_a_killed_worker_loses_nothing(setup, redis_server, tmp_path):
    items = kill_one_of_two_workers(setup, redis_server, tmp_path, "demo-polite")
    by_url = {i["url"]: i for i in items}  # a page being written when killed may come twice: the store dedups
    same_articles(list(by_url.values()), setup["desktop"])


def test_a_killed_worker_of_a_sitemap_crawl_loses_nothing(setup, redis_server, tmp_path):
    """The same on the 400-article simulator found through sitemaps only: the killed worker's sitemap
    and article requests go back to the queue as they were (kinds and all) and every article comes."""
    needs_simulator(setup)
    items = kill_one_of_two_workers(setup, redis_server, tmp_path, "newsim-sitemap")
    assert len({i["url"] for i in items}) == 400


@pytest.mark.parametrize("profile, source", [("demo-sitemap", "/sitemap"), ("demo-feeds", "/rss.xml")])
def test_a_worker_discovers_articles_by_sitemap_or_feeds(setup, site, tmp_path, profile, source):
    """A profile without list links: the worker reads the site's sitemaps (robots.txt -> index ->
    section sitemaps) or the feeds its start page announces, and gets every article, nothing else."""
    _, logged = site
    start = len(logged.log)
    out = tmp_path / "items.jsonl"
    proc = start_worker(setup["python"], setup["project"], profile, out)
    wait_all([proc])
    log = out.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, log[-3000:]
    same_articles(read_items(out), setup["desktop"])
    paths = [p for _, p in logged.log[start:]]
    assert any(source in p for p in paths), paths[:10]
    sections = {p for p in paths if p.endswith("/") and p != "/" or "/trang-" in p}
    assert not sections, f"list pages fetched: {sorted(sections)[:5]}"  # no link rules followed
    assert "'xnews/listed_not_articles'" in log  # section pages / the partner's story were left out


def test_robots_crawl_delay_spaces_the_requests(setup, delayed_site, tmp_path):
    """robots.txt asks for a Crawl-delay longer than the profile's (0): the worker keeps it."""
    server, logged = delayed_site
    start = len(logged.log)
    out = tmp_path / "robots.jsonl"
    proc = start_worker(setup["python"], setup["project"], "demo-robots", out)
    wait_all([proc])
    log = out.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, log[-3000:]
    netloc = server.url.split("/")[2]
    assert f"robots.txt of {netloc} asks for {ROBOTS_DELAY:.2f} s between requests" in log
    pages = [t for t, p in logged.log[start:] if p != "/robots.txt"]
    assert len(pages) >= 8
    gaps = sorted(b - a for a, b in zip(pages, pages[1:]))
    assert gaps[len(gaps) // 2] >= ROBOTS_DELAY * 0.95, f"median gap {gaps[len(gaps) // 2]:.3f} s"
    assert len(early_gaps(pages, ROBOTS_DELAY)) <= 1, gaps


def test_robots_crawl_delay_holds_over_a_cluster(setup, delayed_site, redis_server, tmp_path):
    """Two workers sharing a frontier keep the site's Crawl-delay between them, not each."""
    _, logged = delayed_site
    start = len(logged.log)
    outs = [tmp_path / "c1.jsonl", tmp_path / "c2.jsonl"]
    run_cluster(setup, "demo-robots", redis_server.url, outs)
    pages = [t for t, p in logged.log[start:] if p != "/robots.txt"]
    assert len(pages) >= 12
    gaps = sorted(b - a for a, b in zip(pages, pages[1:]))
    assert gaps[len(gaps) // 2] >= ROBOTS_DELAY * 0.95, f"median gap {gaps[len(gaps) // 2]:.3f} s"
    assert len(early_gaps(pages, ROBOTS_DELAY)) <= 2, gaps


def test_scrapyd_deploy_and_schedule(setup, tmp_path):
    """The project deployed with scrapyd-deploy to a real Scrapyd, a crawl started with schedule.json."""
    pytest.importorskip("scrapyd", reason="Scrapyd is not installed (pip install -e '.[test]')")
    pytest.importorskip("scrapyd_client", reason="scrapyd-client is not installed (pip install -e '.[test]')")
    import requests

    port = free_port()
    (tmp_path / "scrapyd.conf").write_text(
        f"[scrapyd]\nbind_address = 127.0.0.1\nhttp_port = {port}\nmax_proc = 1\npoll_interval = 0.2\n"
        + "".join(f"{name}_dir = {tmp_path / name}\n" for name in ("eggs", "logs", "items", "dbs")), encoding="utf-8")
    server = subprocess.Popen([str(setup["python"]), "-m", "scrapyd"], cwd=tmp_path, env=worker_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(f"{base}/daemonstatus.json", timeout=2).raise_for_status()
                break
            except requests.RequestException:
                assert time.monotonic() < deadline and server.poll() is None, "scrapyd did not start"
                time.sleep(0.2)
        project = tmp_path / "deploy"
        shutil.copytree(setup["project"], project)
        cfg = project / "scrapy.cfg"
        cfg.write_text(cfg.read_text().replace("http://localhost:6800/", base + "/"), encoding="utf-8")
        deploy = subprocess.run([str(setup["python"]), "-m", "scrapyd_client.deploy"], cwd=project, env=worker_env(),
                                capture_output=True, text=True, timeout=120)
        assert deploy.returncode == 0 and '"status": "ok"' in deploy.stdout + deploy.stderr, deploy.stderr
        job = requests.post(f"{base}/schedule.json", timeout=10,
                            data={"project": "xnews_scrapy", "spider": "xnews", "profile": "demo"}).json()
        assert job["status"] == "ok", job
        deadline = time.monotonic() + 120
        while not any(j["id"] == job["jobid"] for j in
                      requests.get(f"{base}/listjobs.json", params={"project": "xnews_scrapy"}, timeout=10).json()["finished"]):
            assert time.monotonic() < deadline, "the Scrapyd job did not finish"
            time.sleep(0.3)
        items = read_items(tmp_path / "items" / "xnews_scrapy" / "xnews" / f"{job['jobid']}.jl")
        same_articles(items, setup["desktop"])  # profiles and model came with the egg
    finally:
        server.terminate()
        server.wait(10)
