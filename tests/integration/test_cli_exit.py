"""`main.py crawl` ends its process at once when the crawl is over (services.exit_now): the
interpreter's tear-down is skipped, and nothing a normal exit would have written is lost."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from ..conftest import REPO


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # output to a pipe is block-buffered
    env["PYTHONPATH"] = str(REPO)
    return env


def test_a_crawl_process_ends_with_everything_written_and_closed(tmp_path, demo_profile):
    data = tmp_path / "data"
    profile_file = tmp_path / "demo.json"
    profile_file.write_text(demo_profile.to_json(), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                           str(profile_file), "--no-images", "--delay", "0"],
                          capture_output=True, text=True, env=_env(), cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # every line of the summary reached the pipe, the last one too
    assert proc.stdout.splitlines()[-1].startswith("  field fill rate: title 100%"), proc.stdout
    summary = next(line for line in proc.stdout.splitlines() if line.startswith("crawl finished: "))
    # the database was closed as by a normal exit: its log is checkpointed into it and removed
    assert not (data / "xnews.sqlite3-wal").exists() and not (data / "xnews.sqlite3-shm").exists()
    assert not list((data / "crawl").glob("*-wal"))
    con = sqlite3.connect(f"file:{data / 'xnews.sqlite3'}?mode=ro", uri=True)
    try:
        [(status, articles)] = con.execute("SELECT status, articles FROM crawl_run").fetchall()
        stored = con.execute("SELECT COUNT(*) FROM article").fetchone()[0]
    finally:
        con.close()
    assert status == "finished" and articles == stored > 0
    assert f"{stored} new articles" in summary


def test_main_called_by_another_program_leaves_its_process_alone(tmp_path, demo_profile):
    """cli.main(argv) (tests, scripts) returns: the process is neither ended nor tuned."""
    profile_file = tmp_path / "demo.json"
    profile_file.write_text(demo_profile.to_json(), encoding="utf-8")
    argv = ["--data-dir", str(tmp_path / "data"), "crawl", "--profile", str(profile_file), "--no-images", "--quiet",
            "--max-articles", "3"]
    proc = _python("import gc\n"
                   "from xnews_gui.cli import main\n"
                   f"code = main({argv!r})\n"
                   "print('returned', code, gc.get_freeze_count())\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "returned 0 0"


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=REPO,
                          timeout=60)


def test_exit_now_runs_the_exit_handlers_and_flushes_the_output_first():
    proc = _python("import atexit, sys\n"
                   "from xnews_gui.services.exit_now import exit_now\n"
                   "atexit.register(lambda: print('handler ran'))\n"
                   "print('written', end=' ')\n"
                   "print('error line', file=sys.stderr)\n"
                   "exit_now(3)\n"
                   "print('not reached')\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "written handler ran\n", "error line\n")


def test_exit_now_waits_like_a_normal_exit_while_a_thread_is_still_working():
    proc = _python("import threading, time\n"
                   "from xnews_gui.services.exit_now import exit_now\n"
                   "t = threading.Thread(target=lambda: (time.sleep(0.3), print('thread done')))\n"
                   "t.start()\n"
                   "exit_now(3)\n"
                   "print('normal exit')\n")
    assert proc.returncode == 0
    assert proc.stdout.split() == ["normal", "exit", "thread", "done"]
