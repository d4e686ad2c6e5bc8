"""Scale-out: the same profiles on Scrapy workers, alone or sharing a Redis frontier.

Worker side (shipped in the ``xnews-worker`` wheel, never imports Qt or the store):
``spider`` (the one generic spider), ``frontier`` (the Redis scheduler), ``politeness``
(per-site delay over all workers), ``pipelines`` (topic classifier), ``feeds``, ``settings``,
``packaged`` (profiles and model shipped in the project).
Desktop side: ``wheel`` and ``project`` (the export); items come back into the store through
``xnews_gui.store.importer``; the commands are in ``xnews_gui.cli.scale``.
"""
