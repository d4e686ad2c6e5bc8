// XNews picker: runs in an isolated JavaScript world, so page scripts can neither see nor break it.
// Talks to Python over ONE bridge slot, receive(json), with plain JSON element descriptions.
// Python drives it with window.__xnewsPicker.start(field, label) / stop() / highlight(xpath).
(function () {
  "use strict";
  if (window.__xnewsPicker) return;

  const LAYER_TAG = "xnews-picker-layer"; // a custom tag: never shifts the same-tag indexes of page XPaths
  // keyed: the outline was moved with the keys, so a click inside it picks the outlined element
  const state = { active: false, field: "", label: "", current: null, keyed: false, matched: [], bridge: null, queue: [] };

  function send(message) {
    const text = JSON.stringify(message);
    if (state.bridge) state.bridge.receive(text);
    else state.queue.push(text);
  }

  function connect() {
    if (typeof QWebChannel === "undefined" || typeof qt === "undefined" || !qt.webChannelTransport) return;
    new QWebChannel(qt.webChannelTransport, function (channel) {
      state.bridge = channel.objects.xnewsBridge;
      state.queue.splice(0).forEach(function (t) { state.bridge.receive(t); });
      send({ type: "ready", url: String(location.href) });
    });
  }

  // --- element descriptions --------------------------------------------------
  function isOurs(el) {
    for (let n = el; n; n = n.parentNode) if (n.nodeName && n.nodeName.toLowerCase() === LAYER_TAG) return true;
    return false;
  }

  function xpathOf(el) {
    const steps = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const tag = n.localName.toLowerCase();
      let index = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) {
        if (s.localName.toLowerCase() === tag) index++;
      }
      steps.unshift(n.parentElement ? tag + "[" + index + "]" : tag);
    }
    return "/" + steps.join("/");
  }

  function crumbOf(el) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      let label = n.localName.toLowerCase();
      if (n.id) label += "#" + n.id;
      const classes = Array.from(n.classList || []).slice(0, 2);
      if (classes.length) label += "." + classes.join(".");
      parts.unshift(label);
    }
    return parts.join(" > ");
  }

  function describe(el) {
    const r = el.getBoundingClientRect();
    const text = (el.innerText || el.textContent || "").replace(/\s+/g, " ").trim();
    return {
      tag: el.localName.toLowerCase(),
      id: el.id || "",
      classes: Array.from(el.classList || []),
      text: text.slice(0, 200),
      xpath: xpathOf(el),
      crumb: crumbOf(el),
      href: el.getAttribute("href") || "",
      src: el.getAttribute("src") || "",
      rect: { x: r.left, y: r.top, width: r.width, height: r.height },
    };
  }

  // --- overlay ---------------------------------------------------------------
  let layer = null, shadow = null, hoverBox = null, bar = null, badge = null;

  function ensureLayer() {
    if (layer && layer.isConnected) return;
    layer = document.createElement(LAYER_TAG);
    layer.style.cssText = "all: initial; position: absolute; left: 0; top: 0; width: 0; height: 0; z-index: 2147483647;";
    shadow = layer.attachShadow({ mode: "closed" });
    const style = document.createElement("style");
    style.textContent = window.__xnewsPickerCss || "";
    shadow.appendChild(style);
    hoverBox = document.createElement("div");
    hoverBox.className = "hover";
    bar = document.createElement("div");
    bar.className = "bar";
    badge = document.createElement("div");
    badge.className = "badge";
    shadow.append(hoverBox, bar, badge);
    document.documentElement.appendChild(layer);
  }

  function place(box, el) {
    const r = el.getBoundingClientRect();
    box.style.left = (r.left + window.scrollX) + "px";
    box.style.top = (r.top + window.scrollY) + "px";
    box.style.width = r.width + "px";
    box.style.height = r.height + "px";
  }

  function showHover(el) {
    state.current = el;
    ensureLayer();
    hoverBox.style.display = "block";
    hoverBox.classList.toggle("reject", state.matched.indexOf(el) >= 0);
    place(hoverBox, el);
    const hint = state.matched.indexOf(el) >= 0 ? "click: reject this match" : "click: select";
    const parts = crumbOf(el).split(" > ");
    const crumb = (parts.length > 4 ? "\u2026 > " : "") + parts.slice(-4).join(" > ");
    showBar(crumb, hint + " \u00b7 \u2191 wider \u00b7 \u2193 narrower \u00b7 Enter select \u00b7 Esc done");
  }

  function showBar(main, hint) {
    ensureLayer();
    bar.textContent = "";
    const field = document.createElement("b");
    field.textContent = state.label || state.field;
    const path = document.createElement("span");
    path.className = "path";
    path.textContent = main;
    const keys = document.createElement("span");
    keys.className = "keys";
    keys.textContent = hint;
    bar.append(field, path, keys);
    bar.style.display = "flex";
  }

  function redrawTints() {
    if (!shadow) return;
    shadow.querySelectorAll(".tint").forEach(function (n) { n.remove(); });
    state.matched.forEach(function (el) {
      const tint = document.createElement("div");
      tint.className = "tint";
      place(tint, el);
      shadow.appendChild(tint);
    });
    const n = state.matched.length;
    badge.textContent = n ? n + (n === 1 ? " match" : " matches") : "";
    badge.style.display = n ? "block" : "none";
  }

  // --- events (capture phase: the page never sees clicks while picking) -------
  function swallow(e) {
    if (!state.active || isOurs(e.target)) return;
    e.preventDefault();
    e.stopPropagation();
    e.stopImmediatePropagation();
  }

  function pick(el) {
    if (!el) return;
    const matchedEl = state.matched.indexOf(el) >= 0 ? el : null;
    send({ type: "pick", field: state.field, negative: !!matchedEl, element: describe(el) });
  }

  function onMove(e) {
    if (!state.active || isOurs(e.target) || e.target === state.current) return;
    if (e.target.nodeType === 1 && e.target !== document.documentElement) {
      state.keyed = false;
      showHover(e.target);
    }
  }

  function onClick(e) {
    if (!state.active) return;
    swallow(e);
    const el = e.target.nodeType === 1 ? e.target : e.target.parentElement;
    if (!el || isOurs(el)) return;
    // a click picks what is outlined (the person may have widened it with the keys)
    const target = state.keyed && state.current && state.current.contains(el) ? state.current : el;
    state.keyed = false;
    pick(target);
  }

  function widen(cur, up) {
    const next = !cur ? null : up ? (cur.parentElement !== document.documentElement ? cur.parentElement : null)
                                  : cur.firstElementChild;
    if (!next) return false;
    state.keyed = true;
    showHover(next);
    return true;
  }

  function onKey(e) {
    if (!state.active) return;
    const cur = state.current;
    if (e.key === "Escape") {
      swallow(e);
      stop();
      send({ type: "exit", field: state.field });
    } else if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      swallow(e);  // in pick mode the arrows widen and narrow, never scroll the page (also at the top or bottom)
      widen(cur, e.key === "ArrowUp");
    } else if (e.key === "w" || e.key === "s") {
      if (widen(cur, e.key === "w")) swallow(e);
    } else if (e.key === "Enter" && cur) {
      swallow(e);
      pick(cur);
    }
  }

  ["mousedown", "mouseup", "dblclick", "auxclick", "contextmenu", "submit", "pointerdown", "pointerup"].forEach(function (t) {
    window.addEventListener(t, swallow, true);
  });
  window.addEventListener("click", onClick, true);
  window.addEventListener("mousemove", onMove, true);
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", function () { if (state.current) showHover(state.current); redrawTints(); });

  // --- API for Python (same isolated world) ------------------------------------
  function start(field, label) {
    state.active = true;
    state.field = String(field || "");
    state.label = String(label || "");
    state.current = null;
    state.keyed = false;
    ensureLayer();
    hoverBox.style.display = "none";
    showBar("point at an element", "click: select \u00b7 Esc done");
    document.documentElement.style.cursor = "crosshair";
    return true;
  }

  function stop() {
    state.active = false;
    state.current = null;
    if (hoverBox) hoverBox.style.display = "none";
    if (bar) bar.style.display = "none";
    document.documentElement.style.cursor = "";
    return true;
  }

  function highlight(xpath) {
    state.matched = [];
    if (xpath) {
      try {
        const res = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < res.snapshotLength; i++) {
          const n = res.snapshotItem(i);
          if (n.nodeType === 1 && !isOurs(n)) state.matched.push(n);
        }
      } catch (err) {
        return -1;
      }
    }
    ensureLayer();
    redrawTints();
    return state.matched.length;
  }

  function reveal(xpath) {
    // tint the matches and bring the first into view (a page opened to show a rule: not at its top)
    const count = highlight(xpath);
    if (count > 0) state.matched[0].scrollIntoView({ block: "center" });
    if (count > 0) redrawTints();
    return count;
  }

  function rectOf(xpath) {
    const n = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    if (!n) return null;
    n.scrollIntoView({ block: "center" });
    // the first line box: an inline element wrapping round a float has a misleading bounding box
    const boxes = n.getClientRects();
    const r = boxes.length ? boxes[0] : n.getBoundingClientRect();
    // a JSON string: Qt turns returned JS objects into nothing useful
    return JSON.stringify({ x: r.left, y: r.top, width: r.width, height: r.height });
  }

  window.__xnewsPicker = { start: start, stop: stop, highlight: highlight, reveal: reveal, rectOf: rectOf, xpathOf: xpathOf,
                          current: function () { return state.active ? state.field : ""; },
                          badge: function () { return badge && badge.style.display !== "none" ? badge.textContent : ""; } };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect);
  else connect();
})();
