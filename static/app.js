// tracediff pages: highlights, keyboard, copy buttons and deep links. No innerHTML anywhere:
// payload keys and values only ever reach the DOM as server-escaped HTML or as textContent.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function byId(id) { return id ? document.getElementById(id) : null; }

  function reveal(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      if (p.tagName === "DETAILS" && !p.open) { p.open = true; }
    }
  }

  function clearHighlights() {
    document.querySelectorAll(".hl").forEach(function (el) { el.classList.remove("hl"); });
  }

  // A deep link that lands nowhere leaves no finding highlighted or focused behind it.
  function clearSelection() {
    clearHighlights();
    var active = document.activeElement;
    if (active && active.closest && active.closest(".finding")) { active.blur(); }
  }

  function mark(el, scroll) {
    reveal(el);
    el.classList.add("hl");
    if (scroll) { el.scrollIntoView({ block: "center", inline: "nearest" }); }
  }

  // An end of a finding may be a container the aligned view shows as its first field.
  function findNode(id) {
    var el = byId(id);
    if (el || !id) { return el; }
    var view = byId("view");
    return view ? view.querySelector('[id^="' + CSS.escape(id + "/") + '"]') : null;
  }

  function highlightFinding(item, scroll) {
    clearHighlights();
    item.classList.add("hl");
    [item.dataset.left, item.dataset.right].forEach(function (id) {
      var node = findNode(id);
      if (node) { mark(node, scroll); }
    });
  }

  // A node of a big payload may not be rendered yet (a closed lazy subtree, or past a "show more"):
  // ask the server for the raw view again with the path to it open (?open=<node id>), then land.
  // A node id is "<stage>/<pointer>": the view says which stages it shows (data-stages).
  function isNodeId(id) {
    var view = byId("view");
    var stages = view ? (view.getAttribute("data-stages") || "").split(" ") : [];
    return stages.indexOf(id.split("/")[0]) >= 0;
  }
  var revealing = null;

  function showNote(text) {
    var view = byId("view");
    if (!view) { return; }
    var note = view.querySelector(".deep-link-note") || document.createElement("p");
    note.className = "note deep-link-note";
    note.setAttribute("role", "status");
    note.textContent = text;
    if (!note.parentElement) { view.insertBefore(note, view.firstElementChild ? view.firstElementChild.nextSibling : null); }
  }

  function revealUrl(id) {
    var url = new URL(location.href);
    url.searchParams.set("view", "raw");
    url.searchParams.set("open", id);
    return url;
  }

  function fetchPath(id) {
    if (!window.htmx || !byId("view") || !isNodeId(id) || revealing === id) { return false; }
    revealing = id;
    var url = revealUrl(id);
    history.replaceState(history.state, "", url.href);   // a reload or a copied URL now renders it open
    setTimeout(function () {   // a failed or hung request never settles: give up visibly
      if (revealing === id && !byId(id)) { revealing = null; showNote("Could not load " + id + " in 10 s."); }
    }, 10000);
    htmx.ajax("GET", url.pathname + url.search, { target: "#view", swap: "outerHTML" });
    return true;
  }

  function onViewSettled(event) {
    if (!revealing || !event.target || event.target.id !== "view") { return; }
    var id = revealing;
    if (!landOnHash()) { clearSelection(); showNote("No node " + id + " in this call."); }
    revealing = null;
  }

  function landOnHash() {
    var raw = location.hash.slice(1);
    if (!raw) { return false; }
    var decoded = raw;
    try { decoded = decodeURIComponent(raw); } catch (e) { /* keep raw */ }
    var el = byId(raw) || byId(decoded) || oldFindingAnchor(raw) || findNode(raw);
    if (!el) { clearSelection(); fetchPath(raw); return false; }
    if (el.classList.contains("finding")) { highlightFinding(el, true); el.focus({ preventScroll: true }); return true; }
    clearHighlights();
    mark(el, true);
    return true;
  }

  // Links pasted before anchors were named after a finding's kind and paths said #finding-N:
  // land on the N-th finding while it exists, and show its stable anchor in the address bar.
  function oldFindingAnchor(raw) {
    var match = /^finding-(\d+)$/.exec(raw);
    var el = match ? document.querySelector('.finding[data-index="' + match[1] + '"]') : null;
    if (el) { history.replaceState(history.state, "", "#" + el.id); }
    return el;
  }

  function findings() { return Array.prototype.slice.call(document.querySelectorAll(".finding")); }

  function step(delta) {
    var list = findings();
    if (!list.length) { return; }
    var at = list.indexOf(document.activeElement);
    if (at < 0) { at = list.findIndex(function (f) { return f.classList.contains("hl"); }); }
    var next = list[Math.min(list.length - 1, Math.max(0, at < 0 ? 0 : at + delta))];
    next.focus({ preventScroll: true });
    highlightFinding(next, true);
  }

  function flash(button, text) {
    var before = button.textContent;
    button.textContent = text;
    setTimeout(function () { button.textContent = before; }, 1200);
  }

  function copy(button, text) {
    navigator.clipboard.writeText(text).then(function () { flash(button, "copied"); },
      function () { flash(button, "copy failed"); });
  }

  function nodeValueUrl(node) {
    var view = node.closest("[data-value-url]");
    var snap = node.closest("[data-snap]");
    var url = new URL(view.dataset.valueUrl, location.href);
    url.searchParams.set("snapshot", (node.dataset.snap || snap.dataset.snap));
    url.searchParams.set("pointer", node.dataset.ptr);
    return url;
  }

  function onClick(event) {
    var target = event.target;
    var button = target.closest("button");
    if (button) {
      var node = button.closest("[data-ptr]");
      if (button.classList.contains("copy-ptr") && node) { event.preventDefault(); copy(button, node.dataset.ptr); return; }
      if (button.classList.contains("copy-value") && node) {
        event.preventDefault();
        fetch(nodeValueUrl(node)).then(function (r) { return r.text(); }).then(function (text) {
          copy(button, text.replace(/\n$/, ""));   // the JSON text exactly, without the response's newline
        });
        return;
      }
      if (button.classList.contains("copy-link")) {
        copy(button, new URL(button.parentElement.querySelector(".permalink").getAttribute("href"), location.href).href);
        return;
      }
      if (button.id === "copy-md") {
        fetch(button.dataset.url).then(function (r) { return r.text(); }).then(function (text) { copy(button, text); });
        return;
      }
      if (button.dataset.tree) { setTrees(button.dataset.tree === "expand"); return; }
    }
    var item = target.closest(".finding");
    if (item && target.closest(".ends a")) { followEnd(event, item, target.closest("a")); return; }
    if (item && !target.closest("a")) { highlightFinding(item, true); }
  }

  // Collapse closes every subtree; expand opens those already loaded (a lazy one that was never
  // opened still holds its "open N items" link), so a huge payload is not fetched whole.
  function setTrees(open) {
    document.querySelectorAll("#view details").forEach(function (d) {
      var unloaded = d.classList.contains("lazy") && d.querySelector(":scope > ul > .lazy-link");
      if (!open || !unloaded) { d.open = open; }
    });
  }

  // An end link of a finding keeps both ends highlighted and scrolls to the end clicked.
  function followEnd(event, item, link) {
    var id = link.getAttribute("href").slice(1);
    var node = findNode(id);
    if (!node) { return; }   // not rendered: the hash change asks the server for it
    event.preventDefault();
    history.pushState(history.state, "", "#" + id);
    highlightFinding(item, false);
    node.scrollIntoView({ block: "center", inline: "nearest" });
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.target.closest("input, select, textarea, [contenteditable]")) { return; }
    if (event.key === "j" || event.key === "n") { step(1); }
    if (event.key === "k" || event.key === "p") { step(-1); }
  }

  function peers(event, on) {
    var node = event.target.closest("[data-row]");
    if (!node || !node.closest("#view")) { return; }
    document.querySelectorAll('#view [data-row="' + CSS.escape(node.dataset.row) + '"]').forEach(function (el) {
      el.classList.toggle("peer", on);
    });
  }

  // Auto-refresh swaps the whole list: while older traces are loaded below it, it waits, and says so.
  function olderShown() {
    var list = byId("list");
    return !!(list && list.querySelector(".trace-row.older"));
  }

  function showPaused() {
    var note = byId("refresh-paused");
    if (note) { note.hidden = !olderShown(); }
  }

  function onBeforeRequest(event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.id === "list" && elt.hasAttribute("hx-trigger") && olderShown()) {
      event.preventDefault();
      showPaused();
    }
  }

  // Back/Forward restores the page as htmx saved it, with the form fields as first rendered:
  // set them from the URL, so the next filter change keeps the search and filters shown.
  function fillFilters() {
    var form = byId("filters");
    if (!form) { return; }
    var params = new URLSearchParams(location.search);
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) { return; }
      if (field.type === "checkbox") { field.checked = params.has(field.name); return; }
      var value = params.get(field.name) || "";
      if (field.tagName === "SELECT") { selectValue(field, value); } else { field.value = value; }
    });
  }

  function selectValue(select, value) {
    var known = Array.prototype.some.call(select.options, function (o) { return o.value === value; });
    if (!known) {
      var option = document.createElement("option");
      option.textContent = value;
      select.appendChild(option);
    }
    select.value = value;
  }

  // An aligned cell's copy buttons are made when the pointer first reaches the cell: the first screen's
  // 200 rows then carry ~1,800 fewer elements for the browser to parse (they only ever show on hover).
  function addCellTools(event) {
    var cell = event.target.closest && event.target.closest("td.cell[data-ptr]");
    if (!cell || cell.querySelector(".node-tools")) { return; }
    var tools = document.createElement("span");
    tools.className = "node-tools";
    ["value", "path"].forEach(function (what) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = what === "value" ? "copy-value" : "copy-ptr";
      button.textContent = what;
      tools.appendChild(button);
    });
    cell.appendChild(tools);
  }

  document.addEventListener("mouseover", addCellTools);
  document.addEventListener("htmx:beforeRequest", onBeforeRequest);
  document.addEventListener("htmx:afterSettle", showPaused);
  document.addEventListener("htmx:historyRestore", fillFilters);
  window.addEventListener("popstate", function () { setTimeout(fillFilters, 0); });
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("focusin", function (event) {
    var item = event.target.closest && event.target.closest(".finding");
    if (item && event.target === item) { highlightFinding(item, true); }
  });
  document.addEventListener("mouseover", function (event) { peers(event, true); });
  document.addEventListener("mouseout", function (event) { peers(event, false); });
  window.addEventListener("hashchange", landOnHash);
  document.addEventListener("htmx:afterSettle", onViewSettled);
  document.addEventListener("DOMContentLoaded", function () {
    landOnHash();
    document.documentElement.dataset.ready = String(performance.now());
  });
})();
