"""SQLite storage through peewee: the ``Store`` object, models, migrations, search."""

from .store import Store, StoreError

__all__ = ["Store", "StoreError"]
