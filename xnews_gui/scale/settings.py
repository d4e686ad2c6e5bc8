"""Scrapy settings of every exported XNews project (its ``settings.py`` starts from these).

The profile chosen with ``-a profile=NAME`` adds its own (delay, concurrency, queue order) in
``XNewsSpider.from_crawler``; ``-s`` on the command line overrides both.
"""

from xnews_gui import __version__

USER_AGENT = f"XNews/{__version__} (personal news reader for offline reading)"
ROBOTSTXT_OBEY = True
ROBOTSTXT_USER_AGENT = "XNews"  # the desktop crawler's robots.txt name
DOWNLOAD_DELAY_JITTER = 0  # the profile's delay, as the desktop keeps it
DOWNLOAD_MAXSIZE = 10 * 1024 * 1024
DOWNLOAD_TIMEOUT = 30
# Scrapy starts this many tasks for the output of every response, whatever it yields (an article page
# yields one item, a list page its new links); the pipelines are synchronous: 100 (the default) cost
# ~2 ms of CPU per page for nothing
CONCURRENT_ITEMS = 4
COOKIES_ENABLED = False
# Scrapy's check for a generator callback that returns a value caches by the callable, weakly: a bound
# method (self.article) is a new object on every response, so the check read the callback's source
# with inspect and ast for each page, ~10% of a worker's CPU; the spider's callbacks return no value
WARN_ON_GENERATOR_RETURN_VALUE = False
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False  # (Scrapy 2.19+) no control port on workers
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
# each exported line reaches the file before its page counts as done (see feeds.py)
FEED_STORAGES = {"": "xnews_gui.scale.feeds.UnbufferedFileStorage",
                 "file": "xnews_gui.scale.feeds.UnbufferedFileStorage"}
ITEM_PIPELINES = {"xnews_gui.scale.pipelines.TopicPipeline": 300}
# last before the download itself: a request held back by robots.txt must not have taken its moment
DOWNLOADER_MIDDLEWARES = {"xnews_gui.scale.politeness.SitePoliteness": 950}

# cluster mode: -s XNEWS_REDIS_URL=redis://HOST:PORT/DB
XNEWS_REDIS_URL = ""
XNEWS_WORKER_TIMEOUT = 10.0  # seconds without a heartbeat before a worker's requests go back
XNEWS_DATA_PACKAGE = ""  # the project's package holding profiles/ and model/
XNEWS_CLASSIFY = True
XNEWS_LIVE_ITEMS = True  # cluster mode: items also to Redis for a desktop following the crawl
