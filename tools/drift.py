"""Drift check: the newest releases of every dependency, in a fresh environment, against the tests.

constraints.txt holds the versions the tests pass with (CI installs them). This installs instead the
newest releases that pyproject.toml allows into a new virtual environment, says which versions moved
and which dependencies have a newer major beyond their bound, and runs the tests there, so a release
that changes what XNews extracts or predicts is seen the day it appears and the pin is moved on
purpose (``pip-compile``, README "Tested versions").

    python3 tools/drift.py                 # the whole suite on the newest versions
    python3 tools/drift.py --quick         # only the tests that pin outputs (extraction, dates, model)
    python3 tools/drift.py --report-only   # exit 0 whatever the tests say (CI's step)

Exit status: 0 when the tests pass on the newest versions, 1 when they fail, 2 when the environment
could not be made (no registry, no venv).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The tests whose outputs are pinned: a new release of lxml, nh3, dateutil, charset-normalizer,
# trafilatura or numpy shows here first.
QUICK = ["tests/unit/test_extract_same.py", "tests/unit/test_extract_real.py", "tests/unit/test_dates.py",
         "tests/unit/test_encoding.py", "tests/unit/test_classify_model.py", "tests/unit/test_classify_fast_path.py",
         "tests/unit/test_xnews_conf.py", "tests/unit/test_qt_references.py"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_versions(path: Path) -> dict[str, str]:
    """name -> version of a pip-compile output."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", line)
        if match:
            pins[canonical(match[1])] = match[2]
    return pins


def bounded_requirements(pyproject: Path) -> dict[str, str]:
    """name -> its upper bound ("<7") of the project's dependencies that have one."""
    import tomllib

    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    bounds = {}
    for requirement in requirements:
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*).*?(<[^,;\s]+)", requirement)
        if match and not match[2].startswith("<="):
            bounds[canonical(match[1])] = match[2]
    return bounds


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, text=True, capture_output=True, **kwargs)


def newest_release(python: str, name: str) -> str | None:
    out = run([python, "-m", "pip", "index", "versions", name], timeout=60)
    match = re.search(r"Available versions:\s*([^,\s]+)", out.stdout)
    return match[1] if match else None


def beyond(version: str, bound: str) -> bool:
    """Whether ``version`` is not allowed by the upper bound ``<X[.Y]``."""
    limit = tuple(int(p) for p in re.findall(r"\d+", bound))
    parts = tuple(int(p) for p in re.findall(r"\d+", version))[: len(limit)]
    return parts >= limit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the tests that pin outputs")
    parser.add_argument("--report-only", action="store_true", help="exit 0 whatever the tests say")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = parser.parse_args(argv)
    failing = 0 if args.report_only else 1

    with tempfile.TemporaryDirectory(prefix="xnews-drift-") as tmp:
        env_dir = Path(tmp) / "env"
        made = run([sys.executable, "-m", "venv", str(env_dir)])
        python = str(env_dir / "bin" / "python")
        if made.returncode != 0:
            print(f"drift: no virtual environment: {made.stderr.strip()[-300:]}", file=sys.stderr)
            return 0 if args.report_only else 2
        print("drift: installing the newest releases pyproject.toml allows into a new environment ...", flush=True)
        installed = run([python, "-m", "pip", "install", "-q", "--upgrade", "-e", f"{REPO}[test]"], timeout=1800)
        if installed.returncode != 0:
            print(f"drift: install failed: {installed.stderr.strip()[-600:]}", file=sys.stderr)
            return 0 if args.report_only else 2
        listed = run([python, "-m", "pip", "list", "--format", "json"])
        newest = {canonical(p["name"]): p["version"] for p in json.loads(listed.stdout)}

        pins = pinned_versions(REPO / "constraints.txt")
        moved = [(name, pins[name], version) for name, version in sorted(newest.items())
                 if name in pins and pins[name] != version]
        print(f"drift: {len(moved)} of {len(pins)} pinned versions moved" + (":" if moved else ""))
        for name, old, new in moved:
            print(f"  {name} {old} -> {new}")
        for name, bound in sorted(bounded_requirements(REPO / "pyproject.toml").items()):
            latest = newest_release(python, name)
            if latest and beyond(latest, bound):
                print(f"  {name} {latest} is out, beyond the bound {bound}: try it on purpose and move the bound")

        tests = QUICK if args.quick else []
        print(f"drift: running {'the pinned-output tests' if args.quick else 'the suite'} on them ...", flush=True)
        result = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests, *args.pytest_args],
                                cwd=REPO, text=True, capture_output=True)
        lines = result.stdout.rstrip().splitlines()
        summary = [line for line in lines if line.startswith(("FAILED", "ERROR", "E  "))]
        for line in summary[:60]:
            print(f"  {line}")
        print(f"drift: {lines[-1] if lines else result.stderr.strip()[-300:]}")
        return 0 if result.returncode == 0 else failing


if __name__ == "__main__":
    raise SystemExit(main())
