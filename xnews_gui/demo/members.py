"""The demo site's members-only section: /thanh-vien/ lists stories whose pages (/thanh-vien/<id>.htm)
show the article only to a logged-in visitor (the cookie below, as a login or a consent banner sets
it); anyone else gets a login form with a password field, with status 200, as real sites answer."""

from __future__ import annotations

import html

SESSION_COOKIE = "demo_session"
SESSION_VALUE = "da-dang-nhap"
COUNT = 12


def logged_in(cookie_header: str) -> bool:
    pairs = (p.strip().split("=", 1) for p in cookie_header.split(";") if "=" in p)
    return any(k == SESSION_COOKIE and v == SESSION_VALUE for k, v in pairs)


def stories(site) -> list:
    return site.articles[:COUNT]


def listing(site) -> str:
    items = "".join(f'<li><a class="member-article" href="/thanh-vien/{a.id}.htm">{html.escape(a.title)}</a></li>'
                    for a in stories(site))
    return site._layout("Thành viên", f'<h2>Dành cho thành viên</h2><ul class="member-list">{items}</ul>')


def login_page(site) -> str:
    form = ('<form class="login" method="post" action="/dang-nhap"><h2>Đăng nhập để đọc tiếp</h2>'
            '<input name="user" placeholder="Email"><input type="password" name="password">'
            '<button>Đăng nhập</button></form>')
    return site._layout("Đăng nhập", form)
