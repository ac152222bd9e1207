// The Plugins view's script: sends every change as a POST with the start's
// secret in a header, and follows states and the journal live.
(function () {
  "use strict";
  var secret = document.querySelector('meta[name="escouade-secret"]').content;
  var statusBox = document.getElementById("status");
  var alertBox = document.getElementById("alert");

  function say(msg) { alertBox.textContent = ""; statusBox.textContent = msg || ""; }
  function warn(msg) { statusBox.textContent = ""; alertBox.textContent = msg || ""; }

  var flash = sessionStorage.getItem("escouade-flash");
  if (flash) { sessionStorage.removeItem("escouade-flash"); say(flash); }

  function clearErrors(form) {
    form.querySelectorAll("[data-error-of]").forEach(function (el) { el.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }

  function markErrors(form, fields) {
    var first = null;
    Object.keys(fields).forEach(function (key) {
      var box = form.querySelector('[data-error-of="' + CSS.escape(key) + '"]');
      if (box) box.textContent = fields[key];
      var input = form.querySelector('[name="' + CSS.escape(key) + '"]');
      if (input) { input.setAttribute("aria-invalid", "true"); first = first || input; }
    });
    if (first) first.focus();
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.hasAttribute("data-post")) return;
    ev.preventDefault();
    clearErrors(form);
    var body = new URLSearchParams(new FormData(form));
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.action, {
      method: "POST",
      headers: { "X-Escouade-Secret": secret, "Content-Type": "application/x-www-form-urlencoded" },
      body: body,
      credentials: "same-origin"
    }).then(function (res) {
      return res.json().catch(function () { return { error: res.status + " " + res.statusText }; });
    }).then(function (a) {
      buttons.forEach(function (b) { b.disabled = false; });
      if (a.fields) markErrors(form, a.fields);
      if (a.error) { warn(a.error); return; }
      if (a.redirect || a.reload) {
        if (a.message) sessionStorage.setItem("escouade-flash", a.message);
        if (a.redirect) location.assign(a.redirect); else location.reload();
        return;
      }
      say(a.message);
    }, function (err) {
      buttons.forEach(function (b) { b.disabled = false; });
      warn(String(err));
    });
  });

  // A button that shows or hides the region it controls (Uninstall…).
  document.querySelectorAll("[data-disclose]").forEach(function (b) {
    b.addEventListener("click", function () {
      var region = document.getElementById(b.getAttribute("aria-controls"));
      var open = b.getAttribute("aria-expanded") !== "true";
      b.setAttribute("aria-expanded", String(open));
      region.hidden = !open;
      if (open) { var f = region.querySelector("button"); if (f) f.focus(); }
    });
  });

  // Live states: every element showing a plugin's state or crashes.
  var list = document.querySelector("[data-live-list]");
  function refreshList() {
    if (!list) return;
    fetch("/list", { credentials: "same-origin" }).then(function (res) { return res.text(); })
      .then(function (html) { list.innerHTML = html; });
  }
  // A plugin's page: the review of its changed folder, with its link, comes
  // and goes as the host's start checks say, without a reload.
  var review = document.querySelector("[data-live-review]");
  function refreshReview() {
    if (!review) return;
    fetch(review.dataset.liveReview, { credentials: "same-origin" }).then(function (res) { return res.text(); })
      .then(function (html) { review.innerHTML = html; });
  }
  function showState(st) {
    var found = false;
    document.querySelectorAll('[data-state-of="' + CSS.escape(st.id) + '"]').forEach(function (el) {
      found = true;
      el.className = "state state-" + st.state;
      el.querySelector(".state-label").textContent = st.label;
      el.querySelector(".state-reason").textContent = st.reason ? ": " + st.reason : "";
    });
    document.querySelectorAll('[data-crashes-of="' + CSS.escape(st.id) + '"]').forEach(function (el) {
      el.textContent = st.crashes;
    });
    if (!found && list) refreshList();
  }
  var offline = document.getElementById("offline");
  var opened = false;
  var states = new EventSource("/events");
  states.addEventListener("state", function (e) { showState(JSON.parse(e.data)); });
  states.addEventListener("list", function () { refreshList(); refreshReview(); });
  states.onopen = function () {
    offline.hidden = true;
    if (opened) { refreshList(); refreshReview(); } // events may have been missed while away
    opened = true;
  };
  states.onerror = function () { offline.hidden = false; };

  // The journal: the last 500 lines, then each new one; filtered by tag.
  var lines = document.getElementById("journal-lines");
  var filter = document.querySelector("[data-journal-filter]");
  function visible(li) { return !filter || !filter.value || li.dataset.tag === filter.value; }
  function lineItem(line) {
    var first = line.indexOf(" "), second = line.indexOf(" ", first + 1);
    var li = document.createElement("li");
    var tag = line.slice(first + 1, second < 0 ? undefined : second);
    li.dataset.tag = tag;
    var time = document.createElement("time");
    time.textContent = line.slice(0, first);
    var tagEl = document.createElement("span");
    tagEl.className = "tag";
    tagEl.textContent = tag;
    var text = document.createElement("span");
    text.className = "text";
    text.textContent = second < 0 ? "" : line.slice(second + 1);
    li.append(time, " ", tagEl, " ", text);
    li.hidden = !visible(li);
    if (filter && !Array.prototype.some.call(filter.options, function (o) { return o.value === tag; })) {
      filter.add(new Option(tag, tag));
    }
    return li;
  }
  if (lines && lines.dataset.stream) {
    var journal = new EventSource(lines.dataset.stream);
    journal.addEventListener("reset", function (e) {
      lines.replaceChildren.apply(lines, JSON.parse(e.data).map(lineItem));
    });
    journal.addEventListener("line", function (e) {
      lines.append(lineItem(JSON.parse(e.data)));
      while (lines.children.length > 500) lines.firstElementChild.remove();
    });
  }
  if (filter) {
    filter.addEventListener("change", function () {
      Array.prototype.forEach.call(lines.children, function (li) { li.hidden = !visible(li); });
    });
  }
})();
