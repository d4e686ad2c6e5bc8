"""The JSON lines a child process (a crawl, a model job) writes to the app, read as they come: each
``{"kind": ..., "data": ...}`` whose data has the type its kind needs, in time linear in the bytes read.
A line that is not one (a stray print, a malformed or over-long line) is logged and skipped: it never
raises in the Qt thread, where it would leave the job shown as running forever."""

from __future__ import annotations

import json
import logging

log = logging.getLogger(__name__)


class ChildLines:
    def __init__(self, name: str, data_types: dict[str, type | tuple[type, ...]], max_line_bytes: int):
        self.name = name
        self.data_types = data_types  # a kind not named here is not read
        self.max_line_bytes = max_line_bytes
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._skipping = False  # within a line over the limit: dropped up to its end

    def feed(self, chunk: bytes) -> list[tuple[str, object]]:
        """The complete, well-formed messages that ``chunk`` ends."""
        parts = chunk.split(b"\n")
        messages = []
        for part in parts[:-1]:
            if self._skipping:
                self._skipping = False
            elif self._pending_bytes + len(part) > self.max_line_bytes:  # whole in one read, or ended in this one
                log.warning("%s: a line of over %d bytes, skipped", self.name, self.max_line_bytes)
            else:
                message = self._message(b"".join(self._pending) + part)
                if message is not None:
                    messages.append(message)
            self._pending, self._pending_bytes = [], 0
        if not self._skipping and parts[-1]:
            self._pending.append(parts[-1])
            self._pending_bytes += len(parts[-1])
            if self._pending_bytes > self.max_line_bytes:
                log.warning("%s: a line of over %d bytes, skipped", self.name, self.max_line_bytes)
                self._pending, self._pending_bytes, self._skipping = [], 0, True
        return messages

    def _message(self, line: bytes) -> tuple[str, object] | None:
        try:
            message = json.loads(line)
            kind, data = message["kind"], message["data"]
        except (ValueError, KeyError, TypeError, RecursionError):
            log.warning("%s: unreadable line %r", self.name, line[:200])
            return None
        if not isinstance(kind, str) or kind not in self.data_types or not isinstance(data, self.data_types[kind]):
            log.warning("%s: unexpected message %r", self.name, line[:200])
            return None
        return kind, data
