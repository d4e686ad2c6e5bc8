"""A wheel of XNews's Qt-free code for Scrapy workers, built from the installed sources.

The worker runs the desktop's own extraction, rules and classifier: the wheel holds the
``xnews_gui`` package with only ``core``, ``classify``, the worker modules of ``scale`` and the
sitemap and feed readers of ``crawl`` (no ``ui``, no ``store``, no CLI, no desktop engine), and its metadata lists the project's dependencies without
PySide6, plus Scrapy and redis. A wheel is a zip with three metadata files (PEP 427), so it is
written here directly: no build tool, no network, the same bytes for the same sources.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

import xnews_gui

DIST = "xnews-worker"
PACKAGES = ("core", "classify")
WORKER_MODULES = ("__init__", "spider", "frontier", "politeness", "pipelines", "feeds", "settings", "packaged",
                  "sources")
CRAWL_MODULES = ("sitemaps", "feeds", "request")  # the desktop's sitemap and feed readers, the Request type
WORKER_REQUIREMENTS = ("scrapy>=2.13", "redis>=4.2")  # Scrapy 2.13: the async start() the spider uses
QT = re.compile(r"^\s*pyside6", re.IGNORECASE)
_EPOCH = (2020, 1, 1, 0, 0, 0)


def source_files() -> list[tuple[str, Path]]:
    """(path inside the wheel, file) for every module the worker ships."""
    root = Path(xnews_gui.__file__).resolve().parent
    files = [("xnews_gui/__init__.py", root / "__init__.py")]
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            files.append((path.relative_to(root.parent).as_posix(), path))
    for name in WORKER_MODULES:
        files.append((f"xnews_gui/scale/{name}.py", root / "scale" / f"{name}.py"))
    for name in CRAWL_MODULES:  # xnews_gui/crawl without its __init__: a namespace package in the worker
        files.append((f"xnews_gui/crawl/{name}.py", root / "crawl" / f"{name}.py"))
    return files


def requirements() -> list[str]:
    """The project's dependencies without PySide6, plus what a Scrapy worker needs."""
    deps = _declared()
    return [d for d in deps if not QT.match(d)] + list(WORKER_REQUIREMENTS)


def _declared() -> list[str]:
    pyproject = Path(xnews_gui.__file__).resolve().parents[1] / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib
        except ImportError:  # Python 3.10
            tomllib = None
        if tomllib is not None:
            return list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"])
    from importlib.metadata import requires

    return [r for r in (requires("xnews") or []) if "extra ==" not in r]


def wheel_name(version: str = xnews_gui.__version__) -> str:
    return f"{DIST.replace('-', '_')}-{version}-py3-none-any.whl"


def build_wheel(folder: Path) -> Path:
    """Write the wheel into ``folder``; its path."""
    version = xnews_gui.__version__
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / wheel_name(version)
    info = f"{DIST.replace('-', '_')}-{version}.dist-info"
    metadata = "\n".join(
        ["Metadata-Version: 2.1", f"Name: {DIST}", f"Version: {version}",
         "Summary: XNews's Qt-free extraction, rules and classifier, and its Scrapy worker",
         "License: MIT", "Requires-Python: >=3.10"]
        + [f"Requires-Dist: {r}" for r in requirements()]) + "\n"
    wheel = "Wheel-Version: 1.0\nGenerator: xnews\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries = [(name, path.read_bytes()) for name, path in source_files()]
    entries += [(f"{info}/METADATA", metadata.encode()), (f"{info}/WHEEL", wheel.encode())]
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    tmp = target.with_name(target.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, _EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    tmp.replace(target)
    return target


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
