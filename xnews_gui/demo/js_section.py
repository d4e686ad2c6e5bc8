"""The demo site's JavaScript-only section: /js/ lists the stories, /js/<id>.htm builds each one in
the browser from data in a script (no JSON-LD, no __NEXT_DATA__): the raw HTML holds no article at
all, so only a rendering crawl gets it. The built markup is the normal article template's, so the demo
profile's rules apply to the rendered page.
"""

from __future__ import annotations

import html
import json

_BUILD = """
(function () {
  var d = JSON.parse(document.getElementById('story-data').textContent);
  setTimeout(function () {
    var app = document.getElementById('app');
    var esc = function (s) { var e = document.createElement('div'); e.textContent = s; return e.innerHTML; };
    var body = d.paragraphs.map(function (p) { return '<p>' + esc(p) + '</p>'; }).join('');
    app.innerHTML = '<article class="article-detail">' +
      '<h1 class="article-title">' + esc(d.title) + '</h1>' +
      '<div class="article-meta"><span class="article-author">' + esc(d.author) + '</span> ' +
      '<time class="published" datetime="' + d.date + '">' + esc(d.date) + '</time></div>' +
      '<p class="article-summary">' + esc(d.summary) + '</p>' +
      '<figure class="article-image"><img src="' + d.image + '" alt=""></figure>' +
      '<div class="article-body">' + body + '</div></article>';
  }, 30);
})();
"""


def js_path(article) -> str:
    return f"/js/{article.id}.htm"


def listing(site) -> str:
    items = "".join(f'<li><a class="js-article" href="{js_path(a)}">{html.escape(a.title)}</a></li>'
                    for a in site.articles)
    return site.page_layout("Tin động (JavaScript)", f'<h2>Tin động</h2><ul class="js-list">{items}</ul>')


def article_shell(site, article) -> str:
    data = {"title": article.title, "summary": article.summary, "paragraphs": list(article.paragraphs),
            "author": article.author, "date": article.published.isoformat() + "+07:00", "image": article.image}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    content = (f'<div id="app"><p class="loading">Đang tải…</p></div>'
               f'<script type="application/json" id="story-data">{payload}</script>'
               f"<script>{_BUILD}</script>")
    return site.page_layout("Tin động", content)
