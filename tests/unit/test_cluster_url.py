"""Following a cluster: the workers' Redis URL is checked before anything connects (the dialog and
`follow-cluster` say why a URL is refused), and a password in it is never shown or logged."""

from __future__ import annotations

import pytest

from xnews_gui.services.cluster import redis_url_problem, shown_url


@pytest.mark.parametrize("url, reason", [
    ("", "give the Redis URL"),
    ("   ", "give the Redis URL"),
    ("http://127.0.0.1:6379/0", "starts with redis://"),
    ("127.0.0.1:6379", "starts with redis://"),
    ("redis://", "names no host"),
    ("redis://127.0.0.1:port/0", "not a Redis URL"),
    ("unix://", "names no socket"),
])
def test_a_url_that_cannot_name_the_workers_redis_is_refused_with_the_reason(url, reason):
    assert reason in redis_url_problem(url)


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://user:pw@cache.example:6380/2",
                                 "unix:///run/redis/redis.sock"])
def test_redis_urls_the_workers_use_are_accepted(url):
    pytest.importorskip("redis", reason="the redis client is not installed (pip install -e '.[scale]')")
    assert redis_url_problem(url) == ""


def test_a_password_is_never_shown():
    assert shown_url("redis://:s3cret@10.0.0.5:6379/0") == "redis://:***@10.0.0.5:6379/0"
    assert shown_url("rediss://bob:s3cret@cache.example/1") == "rediss://bob:***@cache.example/1"
    assert shown_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_follow_cluster_refuses_a_wrong_url_in_one_line_without_connecting(cli):
    code, out, err = cli("follow-cluster", "--profile", "demo", "--redis", "http://:s3cret@127.0.0.1:6379/0")
    assert code == 2 and "starts with redis://" in err and "s3cret" not in err + out
    assert "Traceback" not in err
