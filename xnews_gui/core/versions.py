"""The versions of what shapes XNews's outputs, for model cards and benchmark reports."""

from __future__ import annotations

import platform
from importlib import metadata

# the libraries whose releases can change what is extracted, stored or predicted
OUTPUT_LIBRARIES = ("lxml", "nh3", "python-dateutil", "charset-normalizer", "trafilatura", "regex", "numpy",
                    "scikit-learn", "pycurl", "peewee", "PySide6")


def library_versions() -> dict[str, str]:
    """name -> version ("python" and libxml2 included; a library not installed is left out)."""
    versions = {"python": platform.python_version()}
    for name in OUTPUT_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    try:
        from lxml import etree

        versions["libxml2"] = ".".join(map(str, etree.LIBXML_VERSION))
    except ImportError:
        pass
    return versions


def versions_line() -> str:
    return "versions: " + ", ".join(f"{name} {version}" for name, version in library_versions().items())
