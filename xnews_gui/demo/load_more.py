"""The demo site's list pages that load more by JavaScript, as many news sites' do.

    /xem-them/            "Tin mới": 10 stories, and a "Xem thêm" button; each click fetches the next 10
                          (/xem-them/trang-<n>.htm, a fragment) and adds them, 60 in all; then the button goes
    /cuon/                "Cuộn để xem": 10 stories; scrolling near the bottom fetches the next 10
                          (/cuon/trang-<n>.htm), 60 in all; then "Đã hết tin"

The raw HTML of either page holds only the first 10 links: a crawl that reads raw pages gets 10 of 60,
one that loads more (a profile's ``more``) gets all 60. The stories are the site's 60 newest, linked to
their usual article pages.
"""

from __future__ import annotations

SECTIONS = {"xem-them": "Tin mới", "cuon": "Cuộn để xem"}
STORIES = 60
STEP = 10
PAGES = STORIES // STEP
LATENCY_MS = 120  # a fragment "arrives" this long after it is asked for, as over a network

_CLICK = """
(function () {
  var list = document.getElementById('more-list');
  var button = document.querySelector('button.xem-them');
  var next = 2, pages = +list.getAttribute('data-pages');
  button.addEventListener('click', function () {
    if (button.disabled) return;
    button.disabled = true;
    button.textContent = 'Đang tải…';
    fetch('/xem-them/trang-' + next + '.htm').then(function (r) { return r.text(); }).then(function (html) {
      setTimeout(function () {
        list.insertAdjacentHTML('beforeend', html);
        next += 1;
        if (next > pages) { button.remove(); return; }
        button.disabled = false;
        button.textContent = 'Xem thêm';
      }, %(latency)d);
    });
  });
})();
"""

_SCROLL = """
(function () {
  var list = document.getElementById('more-list');
  var end = document.getElementById('more-end');
  var next = 2, pages = +list.getAttribute('data-pages'), loading = false;
  function nearBottom() {
    var doc = document.documentElement;
    return window.innerHeight + window.scrollY >= doc.scrollHeight - 300;
  }
  function more() {
    if (loading || next > pages || !nearBottom()) return;
    loading = true;
    end.textContent = 'Đang tải…';
    fetch('/cuon/trang-' + next + '.htm').then(function (r) { return r.text(); }).then(function (html) {
      setTimeout(function () {
        list.insertAdjacentHTML('beforeend', html);
        next += 1;
        loading = false;
        end.textContent = next > pages ? 'Đã hết tin' : '';
      }, %(latency)d);
    });
  }
  window.addEventListener('scroll', more);
})();
"""


def stories(site) -> list:
    return sorted(site.articles, key=lambda a: a.published, reverse=True)[:STORIES]


def section_page(site, slug: str) -> str:
    """The section's first page: 10 stories and the way to the rest."""
    items = "\n".join(map(site.list_item, stories(site)[:STEP]))
    name = SECTIONS[slug]
    if slug == "xem-them":
        tail = '<div class="load-more"><button class="xem-them" type="button">Xem thêm</button></div>'
        script = _CLICK % {"latency": LATENCY_MS}
    else:
        tail = '<p id="more-end" class="more-end"></p>'
        script = _SCROLL % {"latency": LATENCY_MS}
    content = (f'<h2 class="section-title">{name}</h2>'
               f'<div class="list-news" id="more-list" data-pages="{PAGES}">\n{items}\n</div>{tail}'
               f"<script>{script}</script>")
    return site.page_layout(name, content)


def fragment(site, slug: str, page: int) -> str | None:
    """Stories of page ``page`` (2 to 6) as the script asks for them: items only, no layout."""
    if slug not in SECTIONS or not 2 <= page <= PAGES:
        return None
    return "\n".join(map(site.list_item, stories(site)[(page - 1) * STEP : page * STEP]))
