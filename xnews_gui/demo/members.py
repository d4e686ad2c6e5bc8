"""The demo site's members-only section: /thanh-vien/ lists stories whose pages (/thanh-vien/<id>.htm)
show the article only to a logged-in visitor (the cookie below, as a login or a consent banner sets
it); anyone else gets a login form with a password field, with status 200, as real sites answer.

/dang-nhap/ is the login form; posting it with any user name and password sets the session cookie
(30 days) and sends the visitor on to the members' section, as a real site's login does."""

from __future__ import annotations

import html
from urllib.parse import parse_qs

SESSION_COOKIE = "demo_session"
SESSION_VALUE = "da-dang-nhap"
SESSION_DAYS = 30
LOGIN_PATH = "/dang-nhap/"
COUNT = 12
MAX_FORM_BYTES = 4096


def logged_in(cookie_header: str) -> bool:
    pairs = (p.strip().split("=", 1) for p in cookie_header.split(";") if "=" in p)
    return any(k == SESSION_COOKIE and v == SESSION_VALUE for k, v in pairs)


def stories(site) -> list:
    return site.articles[:COUNT]


def listing(site) -> str:
    items = "".join(f'<li><a class="member-article" href="/thanh-vien/{a.id}.htm">{html.escape(a.title)}</a></li>'
                    for a in stories(site))
    return site.page_layout("Thành viên", f'<h2>Dành cho thành viên</h2><ul class="member-list">{items}</ul>')


def login_page(site, error: str = "") -> str:
    note = f'<p class="login-error">{html.escape(error)}</p>' if error else ""
    form = (f'<form class="login" method="post" action="{LOGIN_PATH}"><h2>Đăng nhập để đọc tiếp</h2>{note}'
            '<p><input id="user" name="user" placeholder="Email" autocomplete="off"></p>'
            '<p><input id="password" type="password" name="password" placeholder="Mật khẩu"></p>'
            '<p><button id="login" type="submit">Đăng nhập</button></p></form>')
    return site.page_layout("Đăng nhập", form)


def login(site, form_body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, extra headers, body) for a posted login form: any user and password log in."""
    fields = parse_qs(form_body[:MAX_FORM_BYTES].decode("utf-8", "replace"))
    if not (fields.get("user", [""])[0].strip() and fields.get("password", [""])[0]):
        return 200, [], login_page(site, "Nhập email và mật khẩu.").encode("utf-8")
    cookie = (f"{SESSION_COOKIE}={SESSION_VALUE}; Path=/; Max-Age={SESSION_DAYS * 24 * 3600}; "
              "HttpOnly; SameSite=Lax")
    return 303, [("Set-Cookie", cookie), ("Location", "/thanh-vien/")], b""
