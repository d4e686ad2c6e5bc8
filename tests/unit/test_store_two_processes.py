"""Two processes writing to one data folder at once (the app and a CLI crawl or import): a
transaction that reads before it writes must wait for the other writer, not fail with
'database is locked' (SQLite cannot upgrade a read transaction while another process writes)."""

import subprocess
import sys

WRITER = """
import sys
from pathlib import Path
from xnews_gui.store import Store
root, tag = Path(sys.argv[1]), sys.argv[2]
store = Store.open(root)
for i in range(150):
    store.set_category_hidden(f"{tag}-{i % 7}", bool(i % 2))   # read, then insert or update
    with store.writing() as db:                                 # read, then write, by hand
        n = db.execute_sql("SELECT COUNT(*) FROM category").fetchone()[0]
        db.execute_sql("UPDATE category SET hidden = ? WHERE name = ?", (n % 2, f"{tag}-0"))
store.close()
"""


def test_two_processes_reading_then_writing_wait_for_each_other(store, data_dir):
    store.set_category_hidden("seed", False)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(data_dir), tag],
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b", "c")]
    errors = [p.communicate(timeout=180)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e[-400:] for e in errors]
    names = {row[0] for row in store.db.execute_sql("SELECT name FROM category")}
    assert names == {"seed"} | {f"{t}-{i}" for t in "abc" for i in range(7)}

