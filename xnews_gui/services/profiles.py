"""Reading a profile file (JSON) for an import, from the CLI (`profiles import`) and the Sites tab alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.disk.files import MAX_PROFILE_BYTES, file_inside, read_file
from ..core.profile.profile import Profile, ProfileError


def read_profile_file(path: str | Path) -> Profile:
    """The profile in a JSON file; its self-test sample must lie in the file's folder (kept as an
    absolute path, since the profile leaves that folder). ProfileError / ValueError / OSError: one line."""
    path = Path(path)
    try:
        text = read_file(path, MAX_PROFILE_BYTES, "profile").decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProfileError(f"{path} is not UTF-8 text") from None
    if not text.strip():
        raise ProfileError(f"{path} is empty: expected a profile (JSON)")
    profile = Profile.from_json(text)
    test = profile.self_test
    if test and test.file:
        sample = file_inside(path.parent, test.file, "self_test file")
        if not sample.is_file():
            raise ProfileError(f"profile {profile.name!r}: self_test file {test.file!r} not found beside {path}")
        profile = profile.with_(self_test=replace(test, file=str(sample)))
    return profile
