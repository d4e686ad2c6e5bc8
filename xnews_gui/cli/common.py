"""What every command group shares: the user-facing error, reading a profile argument."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.files import MAX_PROFILE_BYTES, read_file
from ..core.profile import Profile
from ..store import Store


class CliError(RuntimeError):
    """An error for the user: printed as one line, exit code 2."""


def port_number(text: str) -> int:
    value = int(text) if text.strip().lstrip("-").isdigit() else -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return value


def read_text(path: Path) -> str:
    data = read_file(path, MAX_PROFILE_BYTES, "profile")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text") from None


def profile_argument(name_or_file: str, store: Store) -> Profile:
    """A stored profile by name, or a profile JSON file."""
    path = Path(name_or_file)
    if name_or_file.endswith(".json") or path.is_file():
        return Profile.from_json(read_text(path))
    profile = store.load_profile(name_or_file)
    if profile is None:
        known = ", ".join(store.profile_names()) or "none"
        raise CliError(f"no profile named {name_or_file!r} (stored profiles: {known})")
    return profile
