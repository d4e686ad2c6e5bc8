"""Feed files written without a userspace buffer.

With Scrapy's default buffered file, a worker killed with -9 loses the last few kilobytes of
items although their pages were already marked done in the shared frontier. Unbuffered, an
exported line is in the operating system's hands before the page is acknowledged.
"""

from __future__ import annotations

from pathlib import Path

from scrapy.extensions.feedexport import FileFeedStorage


class UnbufferedFileStorage(FileFeedStorage):
    def open(self, spider):  # noqa: A003 - Scrapy's name
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        return Path(self.path).open(self.write_mode, buffering=0)
