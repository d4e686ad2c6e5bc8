"""peewee models. They have no database of their own: each ``Store`` binds its own copies of them
(``bind_models``) to its database, so two stores open in one process each write to their own file."""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from types import SimpleNamespace

from peewee import (
    BlobField,
    BooleanField,
    CharField,
    DateTimeField,
    FieldAccessor,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    SQL,
    TextField,
)


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class BaseModel(Model):
    class Meta:
        legacy_table_names = False


class ProfileRecord(BaseModel):
    name = CharField(unique=True)
    json = TextField()
    created = DateTimeField(default=utcnow)
    updated = DateTimeField(default=utcnow)


class ProfileVersion(BaseModel):
    """One saved state of a profile (store/versions.py): its JSON, when and why it was saved."""

    profile = CharField()
    number = IntegerField()  # 1, 2, 3... per profile; never reused, also after old versions are pruned
    at = DateTimeField(default=utcnow)
    reason = TextField(default="")  # "saved in inspector", "repair accepted: body", "imported from file", ...
    json = TextField()

    class Meta:
        indexes = ((("profile", "number"), True),)


class Category(BaseModel):
    name = CharField(unique=True)
    hidden = BooleanField(default=False)  # the user is not interested in it


class CrawlRun(BaseModel):
    profile = CharField(index=True)
    started = DateTimeField(default=utcnow)
    finished = DateTimeField(null=True)
    status = CharField(default="running")  # running | finished | stopped | failed | interrupted
    pid = IntegerField(null=True)  # the process that runs it (to find runs whose process was killed)
    pages = IntegerField(default=0)
    articles = IntegerField(default=0)
    errors = IntegerField(default=0)
    stats_json = TextField(default="{}")


class Article(BaseModel):
    profile = CharField(index=True)
    url = CharField(unique=True)  # canonical URL
    title = TextField()
    summary = TextField(default="")
    image_url = TextField(default="")
    body_html = TextField(default="")
    body_text = TextField(default="")
    author = TextField(default="")
    published = CharField(default="", index=True)  # ISO 8601 or the page's text
    fetched_at = DateTimeField(default=utcnow, index=True)
    content_hash = CharField(index=True)
    category = CharField(null=True, index=True)
    confidence = FloatField(null=True)
    user_label = CharField(null=True)  # a correction made in the reader
    section_label = CharField(null=True)  # topic from the profile's URL-pattern mapping
    read = BooleanField(default=False)
    starred = BooleanField(default=False)
    run = ForeignKeyField(CrawlRun, null=True, backref="articles", on_delete="SET NULL")
    dup_sig = BlobField(null=True)  # MinHash signature of the body (core/text/neardup.py); NULL = too short
    dup_size = IntegerField(null=True)  # shingles behind the signature
    dup_group = IntegerField(null=True, index=True)  # id of the story group's first article; NULL = not grouped yet
    # the stored copy at its source (store/revisions.py): when a changed version replaced it, when the
    # source answered 404/410 on revisits, its validators (a revisit's conditional request) and when the
    # source says it last changed (ISO 8601 UTC: its Last-Modified, or the sitemap's lastmod; "" = unknown)
    updated_at = DateTimeField(null=True)
    gone_at = DateTimeField(null=True, index=True)
    etag = TextField(default="", constraints=[SQL("DEFAULT ''")])  # (a default in SQL too: raw INSERTs leave them out)
    last_modified = TextField(default="", constraints=[SQL("DEFAULT ''")])
    modified_at = TextField(default="", constraints=[SQL("DEFAULT ''")])


class ArticleVersion(BaseModel):
    """An earlier state of an article: what it said before a revisit found it changed or a re-extraction
    with changed rules replaced its fields (store/revisions.py)."""

    article = IntegerField(index=True, column_name="article_id")
    number = IntegerField()  # 1, 2, 3... per article, oldest first
    at = DateTimeField(default=utcnow)  # when it was replaced
    reason = TextField(default="")  # "changed at the source", "re-extracted: ..."
    title = TextField(default="")
    summary = TextField(default="")
    image_url = TextField(default="")
    body_html = TextField(default="")
    body_text = TextField(default="")
    author = TextField(default="")
    published = CharField(default="")
    category = CharField(null=True)
    confidence = FloatField(null=True)
    fetched_at = DateTimeField(null=True)  # when that version was fetched

    class Meta:
        indexes = ((("article", "number"), True),)


class Page(BaseModel):
    """A fetched page (list or article), and where its raw copy lies."""

    url = CharField(unique=True)
    status = IntegerField(default=0)
    encoding = CharField(default="")
    content_type = CharField(default="")
    fetched_at = DateTimeField(default=utcnow)
    raw_path = CharField(default="")
    kind = CharField(default="")  # list | article | other
    error = TextField(default="")


class FailedExtraction(BaseModel):
    profile = CharField(index=True)
    url = CharField()
    reason = TextField()
    at = DateTimeField(default=utcnow)


class ImageCache(BaseModel):
    url = CharField(unique=True)
    sha256 = CharField(default="")
    content_type = CharField(default="")
    size = IntegerField(default=0)
    error = TextField(default="")


class ProfileSchedule(BaseModel):
    """A profile's re-crawl schedule and crawl to resume, kept with the profile (store/schedules.py)."""

    profile = CharField(unique=True)
    minutes = IntegerField(default=0)  # re-crawl every N minutes while the app is open; 0 = not scheduled
    next_run = DateTimeField(null=True)  # UTC
    interrupted = DateTimeField(null=True)  # UTC: the app was closed while its crawl ran (offer to resume it)


class Watch(BaseModel):
    """A saved search that tells the user when a new article matches (store/watches.py)."""

    name = CharField(unique=True)
    words = TextField(default="")  # the search's words (every one must occur; the last as a prefix)
    topic = CharField(null=True)  # a classifier label
    site = CharField(null=True)  # a profile name
    webhook = TextField(default="")  # an http(s) URL the matching articles are POSTed to, or ""
    created = DateTimeField(default=utcnow)


class WatchHit(BaseModel):
    """A new article that matched a watch: once per (watch, article)."""

    watch = ForeignKeyField(Watch, backref="+", on_delete="CASCADE")
    article = ForeignKeyField(Article, backref="+", on_delete="CASCADE")
    at = DateTimeField(default=utcnow)
    seen = BooleanField(default=False)  # the user opened the watch's list since
    webhook_state = CharField(default="")  # "" (no webhook) | pending | sent | failed
    webhook_error = TextField(default="")
    webhook_tries = IntegerField(default=0)

    class Meta:
        indexes = ((("watch", "article"), True),)


ALL_MODELS = [ProfileRecord, ProfileVersion, Category, CrawlRun, Article, ArticleVersion, Page, FailedExtraction,
              ImageCache, ProfileSchedule, Watch, WatchHit]


def bind_models(db) -> SimpleNamespace:
    """The models bound to ``db``: a subclass of each, with the same table, fields and indexes (an
    article's run refers to the same database's CrawlRun). The classes above stay unbound."""
    bound: dict[str, type] = {}
    for model in ALL_MODELS:
        attrs = {"__module__": model.__module__, "__qualname__": model.__qualname__,
                 "Meta": type("Meta", (), {"database": db, "table_name": model._meta.table_name})}
        for name, f in model._meta.fields.items():  # a field hidden by a backref of the same name (CrawlRun.articles)
            if not isinstance(model.__dict__.get(name), FieldAccessor):
                attrs[name] = copy.deepcopy(f)
        if model is Article:  # (no backref: it would hide CrawlRun.articles, the count)
            attrs["run"] = ForeignKeyField(bound["CrawlRun"], null=True, backref="+", on_delete="SET NULL")
        if model is WatchHit:  # its foreign keys point at this database's tables
            attrs["watch"] = ForeignKeyField(bound["Watch"], backref="+", on_delete="CASCADE")
            attrs["article"] = ForeignKeyField(bound["Article"], backref="+", on_delete="CASCADE")
        bound[model.__name__] = type(model.__name__, (model,), attrs)
    return SimpleNamespace(**bound, all=list(bound.values()))
