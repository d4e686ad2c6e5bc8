"""What every command group shares: the user-facing error, reading a profile argument."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.disk.files import MAX_PROFILE_BYTES, read_file
from ..core.profile.profile import Profile
from ..store import Store


class CliError(RuntimeError):
    """An error for the user: printed as one line, exit code 2."""


def count(text: str) -> int:
    """A whole number >= 0 (argparse type)."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 0")
    return int(text)


def positive(text: str) -> int:
    """A whole number >= 1 (argparse type)."""
    value = count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def port_number(text: str) -> int:
    value = int(text) if text.strip().lstrip("-").isdigit() else -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return value


def read_text(path: Path) -> str:
    data = read_file(path, MAX_PROFILE_BYTES, "profile")
    if not data.strip():
        raise CliError(f"{path} is empty: expected a profile (JSON)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text") from None


def profile_argument(name_or_file: str, store: Store) -> Profile:
    """A stored profile by name, or a profile JSON file."""
    path = Path(name_or_file)
    if path.is_dir() and store.load_profile(name_or_file) is None:  # a folder of that name may sit in the cwd
        raise CliError(f"{path} is a folder: give a stored profile's name or a profile JSON file")
    if not path.is_dir() and (name_or_file.endswith(".json") or path.is_file()):
        return Profile.from_json(read_text(path))
    profile = store.load_profile(name_or_file)
    if profile is None:
        known = ", ".join(store.profile_names()) or "none"
        raise CliError(f"no profile named {name_or_file!r} (stored profiles: {known})")
    return profile


def floor_argument(text: str) -> float:
    """A confidence floor as typed: a number in [0, 1)."""
    from ..classify.model import check_floor

    try:
        return check_floor(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a confidence floor: a number from 0 to below 1, "
                                         "e.g. 0.5") from None
