"""Between periodic passes the wall clock is asked again every few seconds: a wait measured once runs on a
clock that stands still while the machine sleeps, so a pass due during a suspend started long after waking."""

from __future__ import annotations

import threading

from tests.integration.crawl_helpers import make_profile
from xnews_gui.crawl import periodic
from xnews_gui.crawl.periodic import PeriodicCrawler


def test_a_pass_due_while_the_machine_slept_starts_on_waking(tmp_path, monkeypatch):
    monkeypatch.setattr(periodic, "WAIT_STEP_S", 0.05)
    now = {"t": 1_000.0}
    runner = PeriodicCrawler(make_profile("http://127.0.0.1:1/"), sink=None, state_dir=tmp_path,
                             clock=lambda: now["t"])

    def one_pass():
        runner.passes.append({"status": "finished"})
        runner.next_run_at = now["t"] + 3600  # the next pass in an hour
        if len(runner.passes) == 1:
            threading.Timer(0.2, lambda: now.update(t=now["t"] + 8 * 3600)).start()  # an 8-hour suspend ends
        return runner.passes[-1]

    monkeypatch.setattr(runner, "run_pass", one_pass)
    done = threading.Event()
    threading.Thread(target=lambda: (runner.run_forever(max_passes=2), done.set()), daemon=True).start()
    assert done.wait(5), "the second pass waited on a clock that did not see the suspend"
    assert len(runner.passes) == 2


def test_stop_ends_the_wait_at_once(tmp_path):
    runner = PeriodicCrawler(make_profile("http://127.0.0.1:1/"), sink=None, state_dir=tmp_path)
    threading.Timer(0.1, runner.stop).start()
    assert runner._wait_until(runner.clock() + 3600) is True
