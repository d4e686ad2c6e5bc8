"""The profiles and the topic model a generated Scrapy project ships as package data.

Read through ``pkgutil`` so they are found in an installed package and in a Scrapyd egg alike.
"""

from __future__ import annotations

import pkgutil
import tempfile
from pathlib import Path

from ..core.profile.profile import Profile, ProfileError, is_profile_name

PROFILES_DIR = "profiles"
MODEL_DIR = "model"
MODEL_FILE = "topic.npz"  # the data-only model format (no pickle)


def load_profile(package: str, name_or_file: str) -> Profile:
    """A profile shipped in ``package`` by name, or a profile JSON file on disk."""
    path = Path(name_or_file)
    if name_or_file.endswith(".json") and path.is_file():
        return Profile.from_json(path.read_bytes())
    if not is_profile_name(name_or_file):
        raise ProfileError(f"{name_or_file!r} is not a profile name")
    try:
        data = pkgutil.get_data(package, f"{PROFILES_DIR}/{name_or_file}.json")
    except (FileNotFoundError, OSError):
        data = None
    if data is None:
        raise ProfileError(f"no profile named {name_or_file!r} in this project (see {package}/{PROFILES_DIR}/)")
    return Profile.from_json(data)


def model_file(package: str) -> Path | None:
    """The shipped topic model as a file on disk (copied out of an egg when needed), or None."""
    try:
        data = pkgutil.get_data(package, f"{MODEL_DIR}/{MODEL_FILE}")
    except (FileNotFoundError, OSError):
        return None
    if data is None:
        return None
    handle = tempfile.NamedTemporaryFile(prefix="xnews-topic-", suffix=Path(MODEL_FILE).suffix, delete=False)
    with handle:
        handle.write(data)
    return Path(handle.name)
