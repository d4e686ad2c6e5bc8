"""SQLite storage through peewee: models, database set-up, migrations, search."""
