"""The profiles shipped in profiles/: loaded into a new database, and their self-test files."""

from __future__ import annotations

from pathlib import Path

from .core.disk.files import MAX_PROFILE_BYTES, file_inside, read_file
from .core.profile.profile import Profile
from .paths import BUNDLED_PROFILES


def bundled_profiles(folder: Path = BUNDLED_PROFILES) -> list[tuple[Path, Profile]]:
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            out.append((path, Profile.from_json(read_file(path, MAX_PROFILE_BYTES, "profile"))))
        except (OSError, ValueError):  # ProfileError and FileRefused are ValueErrors
            continue  # a broken bundled file must not stop the app; `profiles check` reports it
    return out


def seed_bundled_profiles(store, folder: Path = BUNDLED_PROFILES) -> list[str]:
    """Store every bundled profile the ``Store`` does not have yet; return their names."""
    have = set(store.profile_names())
    added = []
    for _, profile in bundled_profiles(folder):
        if profile.name not in have:
            store.save_profile(profile, reason="bundled with XNews")
            added.append(profile.name)
    return added


def self_test_file(profile: Profile, folder: Path = BUNDLED_PROFILES, absolute: bool = False) -> Path | None:
    """The sample page: inside ``folder``; an absolute path only when ``absolute`` (set by an import)."""
    if not profile.self_test or not profile.self_test.file:
        return None
    path = Path(profile.self_test.file)
    if absolute and path.is_absolute():
        return path
    return file_inside(folder, profile.self_test.file, "self_test file")
