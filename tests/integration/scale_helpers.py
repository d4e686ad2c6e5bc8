"""Real pieces for the scale-out tests: a Redis server, a virtual environment without PySide6,
the exported Scrapy project and its worker processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

from xnews_gui.demo.site import DemoSite

REPO = Path(__file__).resolve().parents[2]
_NOT_SHARED = re.compile(r"^(pyside6|shiboken6|xnews|__editable__|_sandboxing|__pycache__)", re.IGNORECASE)


class LoggedDemoSite(DemoSite):
    """The demo site, remembering when each path was asked for."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def render(self, path: str, *args, **kwargs):
        with self._lock:
            self.log.append((time.monotonic(), path))
        return super().render(path, *args, **kwargs)


def early_gaps(times: list[float], delay: float) -> list[tuple[int, float]]:
    """(index, gap) of the gaps between requests, as the server stamped them, under half the delay.

    A server thread held up (the GIL, a busy machine) stamps its request late, which shortens the
    next gap although nothing was sent early: a short gap right after one of more than twice the
    delay is that artefact, not a request sent too soon (the workers are other processes: their
    sockets cannot be watched as the desktop politeness tests do)."""
    spans = [b - a for a, b in zip(times, times[1:])]
    return [(i, g) for i, g in enumerate(spans) if g < delay / 2 and not (i > 0 and spans[i - 1] > 2 * delay)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """``redis-server`` on a free loopback port, nothing saved to disk."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        self.client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def venv_without_qt(folder: Path) -> Path:
    """A real virtual environment that sees this interpreter's packages except PySide6 and XNews
    (symbolic links, no download); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    shared = folder / "shared-packages"
    shared.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        if _NOT_SHARED.match(entry.name) or entry.suffix == ".pth":
            continue
        (shared / entry.name).symlink_to(entry)
    python = folder / "bin" / "python"
    venv_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                    check=True, capture_output=True, text=True).stdout.strip())
    (venv_site / "shared-without-qt.pth").write_text(f"{shared}\n", encoding="utf-8")
    return python


def export_project(folder: Path, profile_files: list[Path], data_dir: Path) -> Path:
    """``python main.py scrapy-project`` as a user runs it; the project folder."""
    out = folder / "project"
    cmd = [sys.executable, str(REPO / "main.py"), "--data-dir", str(data_dir), "scrapy-project", "-o", str(out)]
    for path in profile_files:
        cmd += ["--profile", str(path)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=repo_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def repo_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    return env


def worker_env() -> dict:
    """No PYTHONPATH: the worker finds XNews only through the installed wheel."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return env


def start_worker(python: Path, project: Path, profile: str, out: Path, *settings: str, log: Path | None = None):
    cmd = [str(python), "-m", "scrapy", "crawl", "xnews", "-a", f"profile={profile}", "-o", f"{out}:jsonl"]
    for s in settings:
        cmd += ["-s", s]
    handle = open(log or out.with_suffix(".log"), "wb")  # noqa: SIM115 - closed by the caller's wait
    return subprocess.Popen(cmd, cwd=project, env=worker_env(), stdout=handle, stderr=subprocess.STDOUT)


def wait_all(procs, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    for proc in procs:
        try:
            proc.wait(max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise AssertionError("a worker did not finish in time") from None


def read_items(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def copy_profile(source: Path, target: Path, **changes) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    crawl = changes.pop("crawl", None)
    data.update(changes)
    if crawl:
        data["crawl"].update(crawl)
    data.pop("self_test", None)
    target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return target


def which_redis() -> str | None:
    return shutil.which("redis-server")


def needs_redis() -> None:
    """Skip the test, saying why, when there is no redis-server or no Redis client to run it with."""
    import pytest

    if which_redis() is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    pytest.importorskip("redis", reason="the redis client is not installed (pip install -e '.[test]')")


def run_cluster(setup: dict, profile: str, redis_url: str, outs: list[Path]) -> None:
    """One worker per output file, all sharing the Redis frontier at redis_url; each must exit 0."""
    procs = [start_worker(setup["python"], setup["project"], profile, out, f"XNEWS_REDIS_URL={redis_url}")
             for out in outs]
    wait_all(procs)
    log = outs[0].with_suffix(".log")
    assert [p.returncode for p in procs] == [0] * len(procs), log.read_text(errors="replace")[-3000:]
