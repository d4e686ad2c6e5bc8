"""How a failure reads on screen: XNews's own errors in words, file errors as the command line words them,
anything else (a bug) with its type for the report."""

from __future__ import annotations

from xnews_gui.errors import describe
from xnews_gui.export import ExportError


def test_own_errors_read_without_their_class_name():
    assert describe(ExportError("cannot write /x/a.epub: the folder /x does not exist")) == \
        "cannot write /x/a.epub: the folder /x does not exist"


def test_file_errors_read_as_the_command_line_says_them(tmp_path):
    try:
        open(tmp_path / "missing.txt", encoding="utf-8")
    except OSError as exc:
        assert describe(exc) == f"file not found: {tmp_path / 'missing.txt'}"


def test_anything_else_keeps_its_type_for_the_report():
    assert describe(ValueError("no such topic x")) == "ValueError: no such topic x"
    assert describe(ExportError("")) == "ExportError: "  # an own error that says nothing still says what it is
