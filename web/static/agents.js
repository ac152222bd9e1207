// The Agents pages' script: the New agent form's menus follow the harness
// chosen; the conversation streams as server-sent events and is drawn with
// text nodes only (every text from the agent is put in as text, never as
// markup); prompts, answers, Cancel, mode and model are POSTs with the
// start's secret, as every change of the view.
(function () {
  "use strict";
  var secret = document.querySelector('meta[name="escouade-secret"]').content;
  var statusBox = document.getElementById("status");
  var alertBox = document.getElementById("alert");
  function say(msg) { alertBox.textContent = ""; statusBox.textContent = msg || ""; }
  function warn(msg) { statusBox.textContent = ""; alertBox.textContent = msg || ""; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // post sends a change; the answer's error is shown, and reject()ed.
  function post(url, fields) {
    return fetch(url, {
      method: "POST",
      headers: { "X-Escouade-Secret": secret, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields || {}),
      credentials: "same-origin"
    }).then(function (res) {
      return res.json().catch(function () { return { error: res.status + " " + res.statusText }; });
    }).then(function (a) {
      if (a.error) { warn(a.error); throw new Error(a.error); }
      say(a.message);
      return a;
    });
  }

  // New agent: the Mode and Model menus offer what the chosen harness does.
  var menu = document.querySelector("[data-harness-menu]");
  function followHarness() {
    document.querySelectorAll("select[data-for-harness]").forEach(function (sel) {
      var firstShown = null;
      Array.prototype.forEach.call(sel.options, function (o) {
        var mine = !o.dataset.harness || o.dataset.harness === menu.value;
        o.hidden = !mine;
        o.disabled = !mine;
        if (mine && !firstShown) firstShown = o;
      });
      if (sel.selectedOptions.length === 0 || sel.selectedOptions[0].disabled) {
        if (firstShown) firstShown.selected = true;
      }
    });
  }
  if (menu) { menu.addEventListener("change", followHarness); followHarness(); }

  // The agents list follows the agents and the plugins.
  var list = document.querySelector("[data-agents-list]");
  var shown = null; // the list's last HTML: the same list is not drawn again
  // A redraw keeps what a person is doing in the list: the Delete
  // question they opened and the control their focus is on (data-key).
  function refreshList() {
    if (!list) return;
    fetch("/agents-list", { credentials: "same-origin" }).then(function (res) { return res.text(); })
      .then(function (html) {
        if (html === shown) return;
        shown = html;
        var open = Array.prototype.map.call(list.querySelectorAll("form.confirm:not([hidden])"), function (f) { return f.id; });
        var focused = list.contains(document.activeElement) ? document.activeElement.dataset.key : null;
        list.innerHTML = html;
        open.forEach(function (id) { var f = document.getElementById(id); if (f) reveal(f, true); });
        var again = focused && list.querySelector('[data-key="' + CSS.escape(focused) + '"]');
        if (again) again.focus();
      });
  }
  // reveal shows or hides a row's Delete question.
  function reveal(form, open) {
    var b = list.querySelector('[aria-controls="' + CSS.escape(form.id) + '"]');
    form.hidden = !open;
    if (b) b.setAttribute("aria-expanded", String(open));
    return b;
  }
  if (list) {
    list.addEventListener("click", function (ev) {
      var del = ev.target.closest("[data-agent-delete]");
      if (del) {
        var form = document.getElementById(del.getAttribute("aria-controls"));
        var open = form.hidden;
        reveal(form, open);
        if (open) form.querySelector("button").focus();
        return;
      }
      var keep = ev.target.closest("[data-agent-keep]");
      if (keep) {
        var b = reveal(keep.closest("form"), false);
        if (b) b.focus();
      }
    });
    var plugins = new EventSource("/events");
    plugins.addEventListener("state", refreshList);
    plugins.addEventListener("list", refreshList);
    new EventSource("/agents-events").addEventListener("agent", refreshList);
  }

  var log = document.getElementById("conversation");
  if (!log || !log.dataset.stream) return;
  var bar = document.querySelector("[data-agent-bar]");
  var agent = bar.dataset.agent;
  var base = "/agents/" + encodeURIComponent(agent);
  var T = log.dataset;

  function showState(st) {
    document.querySelectorAll("[data-agent-state-of]").forEach(function (e) {
      if (e.dataset.agentStateOf !== st.id) return;
      e.className = "state state-" + st.state;
      e.querySelector(".state-label").textContent = st.label;
      e.querySelector(".state-reason").textContent = st.reason ? ": " + st.reason : "";
    });
    var act = document.querySelector("[data-agent-activity]");
    if (act && st.activity) act.textContent = st.activity;
    // The Mode menu is the policy the host applies, the agent's record:
    // an agent that switches its own mode does not change it.
    if (st.id === agent) setMenu("mode", st.mode);
    var help = document.querySelector("[data-absent-help]");
    if (help) help.hidden = st.state !== "absent";
    var fix = document.querySelector("[data-absent-fix]");
    if (fix && st.id === agent) {
      fix.hidden = !st.fix;
      fix.href = st.fix || "/";
      fix.textContent = st.fixLabel || "";
    }
    var name = document.querySelector("[data-agent-name]");
    if (name && st.id === agent && st.name) { name.textContent = st.name; document.title = st.name + " · Escouade"; }
  }

  // Drawing the items. Text chunks of one message join in one entry.
  // Every lookup by a text the agent chose (a tool call's id, a card's
  // handle, a message's id) is a Map: an id such as "constructor" or
  // "__proto__" finds nothing but what was put there.
  var messages = new Map(), tools = new Map(), cards = new Map();
  // The conversation follows its end while a person reads its end; one
  // who scrolled up stays where they are. Only the log scrolls: the page
  // and its Prompt box stay where they are.
  var following = true;
  log.addEventListener("scroll", function () {
    following = log.scrollHeight - log.scrollTop - log.clientHeight < 2 * parseFloat(getComputedStyle(log).fontSize);
  });
  function followEnd() { if (following) log.scrollTop = log.scrollHeight; }
  function add(li) { log.append(li); followEnd(); return li; }

  function stream(it) {
    var key = it.type + ":" + (it.messageId || "");
    var li = messages.get(key);
    if (!li || li !== log.lastElementChild) {
      li = el("li", "item " + it.type);
      if (it.type === "user") li.append(el("strong", "who", T.tYou + ": "));
      li.append(el("span", "text"));
      messages.set(key, add(li));
    }
    li.querySelector(".text").append(document.createTextNode(it.text || ""));
    followEnd();
  }

  function diffBlock(d) {
    var box = el("figure", "diff");
    box.append(el("figcaption", "path", d.path));
    var pre = el("pre");
    (d.lines || []).forEach(function (line) {
      var cls = line[0] === "+" ? "add" : line[0] === "-" ? "del" : "keep";
      pre.append(el("span", cls, line + "\n"));
    });
    box.append(pre);
    return box;
  }

  // heading names a tool call by its tool and title; a tool the agent
  // names by its title (a sub-agent's call, a tool of its own) is named
  // once.
  function heading(it) {
    var name = it.name || "", title = it.title || "";
    if (!title || title === name) return name;
    if (!name) return title;
    return name + " · " + title;
  }

  function toolLine(it) {
    return "• " + heading(it) + " [" + (it.status || "") + (it.error ? ": " + it.error : "") + "]";
  }

  function tool(it) {
    var li = tools.get(it.id);
    if (!li) {
      li = el("li", "item tool" + (it.parent ? " child" : ""));
      li.append(el("span", "line"));
      tools.set(it.id, add(li));
    }
    li.querySelector(".line").textContent = toolLine(it);
    if (it.diffs && it.diffs.length) {
      li.querySelectorAll(".diff").forEach(function (d) { d.remove(); });
      it.diffs.forEach(function (d) { li.append(diffBlock(d)); });
    }
  }

  function choose(options, prefix) {
    var pick = null;
    options.forEach(function (o) { if (!pick && o.kind === prefix + "_once") pick = o; });
    options.forEach(function (o) { if (!pick && o.kind.indexOf(prefix + "_") === 0) pick = o; });
    return pick;
  }

  // The keys of the answers, as Zed's agent panel has them: Alt+Shift+A
  // allows, Alt+Shift+X denies, Alt+Shift+Q allows from now on. Enter
  // answers nothing: a Return typed for the prompt never allows a tool.
  var answerKeys = { allow: "A", deny: "X", always: "Q" };
  var mac = /Mac|iPhone|iPad/.test(navigator.platform || "");
  function keyLabel(letter) { return (mac ? "⌥⇧" : T.tKeyMod) + letter; }

  function answerButton(label, request, option, hint, role) {
    var b = el("button", option.kind.indexOf("allow") === 0 ? "primary" : "", label);
    b.type = "button";
    if (role) {
      b.dataset.answer = role;
      b.setAttribute("aria-label", label); // its key is told by aria-keyshortcuts
      b.setAttribute("aria-keyshortcuts", "Alt+Shift+" + answerKeys[role]);
      var k = el("kbd", "key", keyLabel(answerKeys[role]));
      k.setAttribute("aria-hidden", "true");
      b.append(" ", k);
    }
    if (hint && hint !== label) b.title = hint;
    b.addEventListener("click", function () {
      b.disabled = true;
      post(base + "/permission", { request: request, option: option.id }).catch(function () { b.disabled = false; });
    });
    return b;
  }

  // meaningOf says what an answer does, by its kind: what the agent
  // promises for it, whatever it names it.
  function meaningOf(o) {
    return meaningTexts.get(o.kind) || T.tMeansOther;
  }
  var meaningTexts = new Map([["allow_once", T.tMeansAllowOnce], ["allow_always", T.tMeansAllowAlways],
    ["reject_once", T.tMeansRejectOnce], ["reject_always", T.tMeansRejectAlways]]);

  // inputBlock shows what the tool is asked to run: its leading field
  // (the command, the URL, the path…), then the whole input.
  function inputBlock(input) {
    var box = el("figure", "input");
    if (input.lead) {
      box.append(el("figcaption", "input-field", input.field + ":"));
      var lead = el("pre", "input-lead");
      lead.append(el("code", "", input.lead));
      box.append(lead);
    }
    var all = el("pre", "input-json");
    all.append(el("code", "", input.json));
    box.append(all);
    if (input.cut) box.append(el("p", "hint", T.tInputCut.replace("%d", input.cut)));
    return box;
  }

  function permission(it) {
    var li = el("li", "item card permission");
    li.setAttribute("role", "group");
    var title = T.tPermission + ": " + heading(it);
    li.setAttribute("aria-label", title);
    li.dataset.request = it.request;
    li.append(el("p", "card-title", title));
    if (it.description) li.append(el("p", "description", it.description));
    if (it.input) li.append(inputBlock(it.input));
    (it.locations || []).forEach(function (p) { li.append(el("p", "path", p)); });
    (it.diffs || []).forEach(function (d) { li.append(diffBlock(d)); });
    var buttons = el("p", "buttons answers");
    var options = it.options || [];
    var allow = choose(options, "allow"), deny = choose(options, "reject");
    var meanings = el("ul", "answers meanings");
    var others = options.filter(function (o) { return o !== allow && o !== deny; });
    var always = null;
    others.forEach(function (o) { if (!always && o.kind === "allow_always") always = o; });
    [allow, deny].concat(others).forEach(function (o) {
      if (!o) return;
      var label = o === allow ? T.tAllow : o === deny ? T.tDeny : (o.name || o.kind);
      var role = o === allow ? "allow" : o === deny ? "deny" : o === always ? "always" : "";
      buttons.append(answerButton(label, it.request, o, meaningOf(o), role));
      var line = label + ": " + meaningOf(o);
      if (o.name && o.name !== label) line += " (" + T.tAgentCalls.replace("%s", o.name) + ")";
      meanings.append(el("li", "", line));
    });
    li.append(buttons, meanings);
    cards.set(it.request, add(li));
    arrived(li);
  }

  function question(it) {
    var li = el("li", "item card question");
    li.setAttribute("role", "group");
    li.setAttribute("aria-label", T.tQuestion);
    li.dataset.request = it.request;
    var form = el("form", "answers");
    (it.questions || []).forEach(function (q, i) {
      var text = (q.header ? q.header + " · " : "") + q.question;
      li.append(el("p", "card-title", text));
      var set = el("fieldset");
      set.append(el("legend", "visually-hidden", text));
      (q.options || []).forEach(function (label, j) {
        var id = "q-" + it.request + "-" + i + "-" + j;
        var input = el("input");
        input.type = q.multiSelect ? "checkbox" : "radio";
        input.name = "q" + i;
        input.value = label;
        input.id = id;
        var lab = el("label", "", label);
        lab.htmlFor = id;
        var row = el("span", "choice");
        row.append(input, lab);
        set.append(row);
      });
      var otherId = "q-" + it.request + "-" + i + "-other";
      var other = el("input");
      other.type = "text";
      other.name = "q" + i + ".other";
      other.id = otherId;
      var olab = el("label", "", T.tOther);
      olab.htmlFor = otherId;
      var orow = el("span", "choice other");
      orow.append(olab, other);
      set.append(orow);
      form.append(set);
    });
    var send = el("button", "primary", T.tAnswer);
    send.type = "submit";
    form.append(send);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var answers = (it.questions || []).map(function (q, i) {
        var picked = Array.prototype.map.call(form.querySelectorAll('input[name="q' + i + '"]:checked'), function (x) { return x.value; });
        var typed = form.querySelector('input[name="q' + i + '.other"]').value.trim();
        if (typed) picked.push(typed);
        return picked;
      });
      send.disabled = true;
      post(base + "/question", { request: it.request, answers: JSON.stringify(answers) }).catch(function () { send.disabled = false; });
    });
    li.append(form);
    cards.set(it.request, add(li));
    arrived(li);
  }

  // A card that comes takes the focus (as a group: no answer is given by
  // a key typed for something else), so a person answers it from the
  // keyboard; while the conversation is read afresh, the focus waits for
  // its end and goes to the first card still waiting.
  var drawingReset = false;
  function arrived(li) {
    li.tabIndex = -1;
    if (!drawingReset) focusCard(li);
  }
  function focusCard(li) {
    li.focus({ preventScroll: true });
    var top = li.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top + li.offsetHeight > log.scrollTop + log.clientHeight) log.scrollTop = top;
  }
  function waitingCards() { return log.querySelectorAll(".card:not(.done)"); }

  // The answer keys answer the card the focus is in, else the first that
  // waits.
  document.addEventListener("keydown", function (ev) {
    if (!ev.altKey || !ev.shiftKey || ev.ctrlKey || ev.metaKey) return;
    var role = null;
    Object.keys(answerKeys).forEach(function (r) { if (ev.code === "Key" + answerKeys[r]) role = r; });
    if (!role) return;
    var card = document.activeElement && document.activeElement.closest && document.activeElement.closest(".card:not(.done)");
    card = card || waitingCards()[0];
    var b = card && card.querySelector('button[data-answer="' + role + '"]:not(:disabled)');
    if (!b) return;
    ev.preventDefault();
    b.click();
  });

  var kinds = new Map([["allow_once", "Allow once"], ["allow_always", "Allow always"], ["reject_once", "Reject"], ["reject_always", "Reject always"]]);
  function answered(it) {
    var li = cards.get(it.request);
    var text = it.outcome === "cancelled" ? "cancelled"
      : it.answers ? it.answers.map(function (a) { return a.join(", "); }).join("; ")
      : (kinds.get(it.kind) || it.kind || it.option);
    if (!li) { add(el("li", "item answered", T.tAnswered + ": " + text)); return; }
    var hadFocus = li.contains(document.activeElement);
    li.querySelectorAll(".answers").forEach(function (e) { e.remove(); });
    li.classList.add("done");
    li.append(el("p", "answered", T.tAnswered + ": " + text));
    if (hadFocus) {
      var next = waitingCards()[0];
      if (next) focusCard(next); else box.focus({ preventScroll: true });
    }
  }

  function turn(it) {
    var text = "— " + T.tTurn + " (" + it.stopReason + ")";
    // An agent that counts no tokens per turn (Codex) gives the size of
    // its context instead: said as such, never as "0 in, 0 out".
    if (it.usage && it.usage.fromContext) text += ", " + T.tContextTokens.replace("%d", it.usage.totalTokens);
    else if (it.usage) text += ", " + T.tTokens.replace("%d", it.usage.inputTokens).replace("%d", it.usage.outputTokens);
    add(el("li", "item turn", text));
  }

  function setMenu(op, value, label) {
    var sel = bar.querySelector('[data-agent-op="' + op + '"]');
    if (!sel || !value) return;
    if (!hasOption(sel, value)) sel.add(new Option(label || value, value));
    sel.value = value;
    sel.dataset.current = value;
    // Once the agent says its model, "the agent's default" is that one.
    if (op === "model") Array.prototype.slice.call(sel.options).forEach(function (o) { if (o.value === "") o.remove(); });
  }
  function hasOption(sel, value) { return Array.prototype.some.call(sel.options, function (o) { return o.value === value; }); }

  // reported shows the model a session says it runs; the models it
  // offers join the menu when the harness lists none of its own (the
  // host takes any model then).
  function reported(it) {
    var sel = bar.querySelector('[data-agent-op="model"]');
    if (!sel || !it.model) return;
    var label = null;
    (it.models || []).forEach(function (m) {
      if (m.id === it.model) label = m.label;
      if (sel.dataset.listed === "0" && !hasOption(sel, m.id)) sel.add(new Option(m.label, m.id));
    });
    setMenu("model", it.model, label);
  }

  function draw(it) {
    switch (it.type) {
      case "text": case "thinking": case "user": stream(it); return;
      case "tool": case "toolDone": tool(it); return;
      case "permission": permission(it); return;
      case "question": question(it); return;
      case "answered": answered(it); return;
      case "turn": turn(it); return;
      case "notice": add(el("li", "item notice", it.text)); return;
      case "mode": break; // the menu shows the host's mode, from the agent's state

      case "model": setMenu("model", it.model); break;
      case "session": reported(it); break;
    }
    if (it.type === "plan" && it.entries) {
      var li = el("li", "item plan", it.line);
      var ul = el("ul");
      it.entries.forEach(function (e) { ul.append(el("li", "", e.content + (e.status ? " [" + e.status + "]" : ""))); });
      li.append(ul);
      add(li);
      return;
    }
    if (it.line) add(el("li", "item " + it.type, it.line));
  }

  // drawOne draws an item; one that cannot be drawn says so in its place,
  // and the items after it are drawn still.
  function drawOne(it) {
    try {
      draw(it);
    } catch (err) {
      var type = it && typeof it.type === "string" ? it.type : "?";
      add(el("li", "item broken", T.tBroken + " (" + type + "): " + String(err && err.message || err)));
    }
  }

  var events = new EventSource(log.dataset.stream);
  events.addEventListener("reset", function (e) {
    log.replaceChildren();
    messages = new Map(); tools = new Map(); cards = new Map();
    drawingReset = true;
    try { JSON.parse(e.data).forEach(drawOne); } finally { drawingReset = false; }
    following = true;
    followEnd();
    var first = waitingCards()[0];
    if (first) focusCard(first);
  });
  events.addEventListener("item", function (e) { drawOne(JSON.parse(e.data)); });
  events.addEventListener("state", function (e) { showState(JSON.parse(e.data)); });

  var prompt = document.querySelector("[data-agent-prompt]");
  var box = prompt.querySelector("textarea");
  // Enter sends, as Ctrl+Enter and Cmd+Enter do; Shift+Enter is a new
  // line; an Enter that ends an input method's composition is its own.
  box.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" || ev.isComposing || ev.keyCode === 229 || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    prompt.requestSubmit();
  });
  prompt.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var button = prompt.querySelector("button");
    if (button.disabled) return; // one prompt at a time, however Enter is pressed
    button.disabled = true;
    post(base + "/prompt", { text: box.value }).then(function () {
      box.value = "";
    }).catch(function () {}).then(function () { button.disabled = false; });
  });
  bar.querySelector("[data-agent-cancel]").addEventListener("click", function () {
    post(base + "/cancel").catch(function () {});
  });
  bar.querySelector("[data-agent-stop]").addEventListener("click", function () {
    post(base + "/stop").catch(function () {});
  });
  // A mode or model refused goes back to the one the agent has.
  bar.querySelectorAll("[data-agent-op]").forEach(function (sel) {
    sel.dataset.current = sel.value;
    sel.addEventListener("change", function () {
      var fields = {};
      fields[sel.dataset.agentOp] = sel.value;
      post(base + "/" + sel.dataset.agentOp, fields).then(function () { sel.dataset.current = sel.value; },
        function () { sel.value = sel.dataset.current; });
    });
  });
})();
