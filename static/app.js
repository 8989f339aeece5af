// Page behaviour that htmx attributes do not cover. Loaded as a file: the
// Content-Security-Policy allows no inline script.
// The page's words in its language, from the body's data-msgs (the server
// writes them; English when they are missing).
window.ntMsgs = (function () {
  var m = {};
  try { m = JSON.parse(document.body.dataset.msgs || "{}"); } catch (e) { m = {}; }
  var en = {
    copied: "Copied", timeUp: "time is up", yourTurn: "(Your turn)", notifyTitle: "Your turn · No Thanks!",
    chatTitle: "New message at game #{n} · No Thanks!",
    tStart: "A tournament you joined starts now.", tTable: "Your table is ready: game #{n}.",
    tBye: "You have a bye this round: its points are yours.", tCancelled: "A tournament you joined was cancelled: too few players.",
    tGo: "Open it", tableReady: "(Your table is ready)",
    notifyBody: "Game #{n} waits for you.", waitingOne: "{n} game waiting for you", waitingMany: "{n} games waiting for you",
    noNotify: "This browser has no notifications.", allowed: "Allowed: you will be notified.",
    blocked: "Blocked in this browser's site settings.", units: ["d", "h", "m", "s"], spaced: false
  };
  Object.keys(en).forEach(function (k) { if (!(k in m)) m[k] = en[k]; });
  // fill puts a number where a message has "{n}".
  m.fill = function (text, n) { return text.replace("{n}", String(n)); };
  return m;
})();

// ntCSRF is the page's form token (the body's hx-headers carry it for htmx),
// for the requests and forms the page's script sends itself.
window.ntCSRF = function () {
  try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || ""; } catch (e) { return ""; }
};

(function () {
  "use strict";
  var msgs = window.ntMsgs;

  // Count down every element with data-deadline (an RFC 3339 time).
  function tick() {
    var now = Date.now(), u = msgs.units, sp = msgs.spaced ? " " : "";
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = Math.max(0, Math.floor((Date.parse(el.dataset.deadline) - now) / 1000));
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      var text = d > 0 ? d + sp + u[0] + " " + h + sp + u[1] : h > 0 ? h + sp + u[1] + " " + m + sp + u[2] : m + ":" + String(s).padStart(2, "0");
      el.textContent = left === 0 ? msgs.timeUp : text;
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSettle", tick);

  // Dates and times in the reader's own time: <time data-local-datetime>.
  function localDateTimes(root) {
    root.querySelectorAll("time[data-local-datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d)) el.textContent = d.toLocaleString(document.documentElement.lang || undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
      el.removeAttribute("data-local-datetime");
    });
    // A form's times are read in the browser's time zone.
    root.querySelectorAll("input[data-browser-time-zone]").forEach(function (el) {
      try { el.value = Intl.DateTimeFormat().resolvedOptions().timeZone || el.value; } catch (e) { /* the account's zone stays */ }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { localDateTimes(document); });
  document.addEventListener("htmx:afterSettle", function (ev) { localDateTimes(ev.target || document); });

  // Copy buttons: <button data-copy="text">.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn || !navigator.clipboard) return;
    navigator.clipboard.writeText(btn.dataset.copy).then(function () {
      var was = btn.textContent;
      btn.textContent = msgs.copied;
      setTimeout(function () { btn.textContent = was; }, 1500);
    });
  });
})();

// Live updates: the board arrives over server-sent events. When the stream
// cannot be held (an error, or no EventSource at all), poll every few
// seconds instead: the board's hidden poller asks for the board and gets
// 204 while nothing changed. When the stream comes back, polling stops.
(function () {
  "use strict";
  var timer = null;
  function startPolling() {
    if (timer || !document.getElementById("board")) return;
    timer = setInterval(function () { htmx.trigger(document.body, "nt:poll"); }, 3000);
  }
  function stopPolling() {
    if (timer) { clearInterval(timer); timer = null; }
  }
  document.addEventListener("htmx:sseError", startPolling);
  document.addEventListener("htmx:sseClose", startPolling);
  document.addEventListener("htmx:sseOpen", stopPolling);
  document.addEventListener("DOMContentLoaded", function () {
    if (typeof EventSource === "undefined") startPolling();
  });
  // A page the browser keeps to come back to (the back/forward cache) must
  // not keep its streams open: the server would count its player at the
  // table, and send no "your turn" push or mail, for as long as the browser
  // keeps it. Its streams are closed; coming back, the page loads afresh.
  var closed = false;
  window.addEventListener("pagehide", function (ev) {
    if (!ev.persisted) return;
    // The sse extension closes an element's stream when htmx cleans the
    // element up (htmx.remove does not clean up): that event, alone.
    document.querySelectorAll("[sse-connect]").forEach(function (el) { closed = true; htmx.trigger(el, "htmx:beforeCleanupElement"); });
  });
  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted && closed) location.reload();
  });
})();

// Turns: on every page of a logged-in player, one small stream says how
// many games wait for their decision (/my/events). The "My games" badge,
// the title's "(Your turn)", the favicon's mark, the optional sound and the
// browser notification (only when the tab is hidden, only if the player
// allowed it with the button in the settings) follow it; lists of one's
// own games refresh on "nt:mine".
(function () {
  "use strict";
  var body = document.body, url = body && body.dataset.turns;
  var last = null;
  var msgs = window.ntMsgs;
  var PREFIX = msgs.yourTurn + " ", READY = msgs.tableReady + " ";
  // The title's marks: "(Your turn)" while a game waits for the player,
  // "(Your table is ready)" once a tournament table is ready, for as long
  // as the page is open (its banner says the same).
  var turnMark = false, readyMark = false;
  function drawTitle() {
    var t = document.title;
    for (var again = true; again;) {
      again = false;
      [PREFIX, READY].forEach(function (p) { if (t.indexOf(p) === 0) { t = t.slice(p.length); again = true; } });
    }
    document.title = (turnMark ? PREFIX : "") + (readyMark ? READY : "") + t;
  }
  function setTitle(n) { turnMark = n > 0; drawTitle(); }
  function setIcon(n) {
    var link = document.querySelector("link[rel=icon][data-icon]");
    if (link) link.href = n > 0 ? link.dataset.iconTurn : link.dataset.icon;
  }
  // The badge counts the games waiting for a decision and the invitations
  // waiting for an answer; the title and the icon, the games only.
  function setBadge(n, invites) {
    var badge = document.getElementById("nav-my-turn"), words = document.getElementById("nav-my-turn-words");
    if (badge) { badge.textContent = String(n + invites); badge.hidden = n + invites === 0; }
    if (words) {
      var s = "";
      if (n > 0) s += ", " + msgs.fill(n === 1 ? msgs.waitingOne : msgs.waitingMany, n);
      if (invites > 0) s += ", " + msgs.fill(invites === 1 ? msgs.inviteOne : msgs.inviteMany, invites);
      words.textContent = s;
    }
  }
  window.ntBeep = beep;
  function beep() {
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return;
    try {
      var ctx = new AC(), o = ctx.createOscillator(), g = ctx.createGain();
      o.type = "sine"; o.frequency.value = 880;
      g.gain.setValueAtTime(0.0001, ctx.currentTime);
      g.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.25);
      o.connect(g); g.connect(ctx.destination); o.start(); o.stop(ctx.currentTime + 0.3);
      o.onended = function () { ctx.close(); };
    } catch (e) { /* no sound is no harm */ }
  }
  function notify(games, before) {
    if (!("Notification" in window) || Notification.permission !== "granted" || !document.hidden) return;
    var fresh = games.filter(function (g) { return before.indexOf(g) < 0; });
    if (fresh.length === 0) return;
    var n = new Notification(msgs.notifyTitle, { body: msgs.fill(msgs.notifyBody, fresh[0]), tag: "nt-turn-" + fresh[0] });
    n.onclick = function () { window.focus(); location.href = "/games/" + fresh[0]; };
  }
  function apply(u) {
    var before = last ? last.games : [];
    var invites = u.invites || 0;
    setBadge(u.my_turn, invites); setTitle(u.my_turn); setIcon(u.my_turn);
    var came = u.games.some(function (g) { return before.indexOf(g) < 0; });
    if (last && came) {
      if ("turnSound" in body.dataset) beep();
      notify(u.games, before);
    }
    if (last && (came || u.my_turn !== last.my_turn || invites !== (last.invites || 0))) htmx.trigger(body, "nt:mine");
    last = u;
  }
  function onTurn(ev) {
    try { apply(JSON.parse(ev.data)); } catch (e) { /* a bad frame changes nothing */ }
  }
  // A tournament's notice: it starts, your table is ready, a bye. Shown
  // at the top of the page with a link, with the turn's sound and (tab
  // hidden) a notification; on the page of the tournament, or of a game of
  // it, a table that is ready is where the player goes at once.
  function onNotice(ev) {
    var n;
    try { n = JSON.parse(ev.data); } catch (e) { return; }
    var text, href;
    if (n.kind === "table") { text = msgs.fill(msgs.tTable, n.game); href = "/games/" + n.game; }
    else if (n.kind === "start") { text = msgs.tStart; href = "/tournaments/" + n.tournament; }
    else if (n.kind === "bye") { text = msgs.tBye; href = "/tournaments/" + n.tournament; }
    else if (n.kind === "cancelled") { text = msgs.tCancelled; href = "/tournaments/" + n.tournament; }
    else return;
    if (n.kind === "table" && body.dataset.tournament === String(n.tournament)) {
      location.href = href;
      return;
    }
    if (n.kind === "table") { readyMark = true; drawTitle(); }
    var area = document.getElementById("flash-area");
    if (area) {
      var box = document.createElement("div"), a = document.createElement("a");
      box.className = "flash info"; box.setAttribute("role", "alert"); box.setAttribute("data-testid", "notice");
      box.appendChild(document.createTextNode(text + " "));
      a.href = href; a.textContent = msgs.tGo; box.appendChild(a);
      area.replaceChildren(box);
    }
    if ("turnSound" in body.dataset) beep();
    if ("Notification" in window && Notification.permission === "granted" && document.hidden) {
      var note = new Notification(text, { tag: "nt-tournament-" + n.tournament });
      note.onclick = function () { window.focus(); location.href = href; };
    }
  }
  // A list of games (open tables, games to watch) reads itself again when
  // the stream says it changed, after a short random pause so that the
  // pages of a busy site do not all ask at once; while no stream is open it
  // asks every 15 seconds instead, and once more when the stream is back.
  var listPoll = null;
  function onLists() {
    setTimeout(function () { htmx.trigger(body, "nt:lists"); }, Math.random() * 1000);
  }
  function pollLists(on) {
    if (!body || !("lists" in body.dataset)) return;
    if (on && !listPoll) listPoll = setInterval(function () { htmx.trigger(body, "nt:lists"); }, 15000);
    if (!on && listPoll) { clearInterval(listPoll); listPoll = null; onLists(); }
  }
  var es = null;
  function connect() {
    if (es || !url) return;
    if (typeof EventSource === "undefined") { pollLists(true); return; }
    es = new EventSource(url);
    es.addEventListener("turn", onTurn);
    es.addEventListener("notice", onNotice);
    es.addEventListener("lists", onLists);
    es.addEventListener("open", function () { pollLists(false); });
    es.addEventListener("error", function () { pollLists(true); });
  }
  // A page left for another is closed; one the browser keeps to come back
  // to must not hold one of its few connections to the site meanwhile.
  window.addEventListener("pagehide", function () { if (es) { es.close(); es = null; } });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) connect(); });
  document.addEventListener("DOMContentLoaded", connect);
  // On a game's page the game's stream carries the turn events too.
  if (body && "turnsInStream" in body.dataset) {
    document.addEventListener("htmx:sseOpen", function (ev) {
      // A featured table's stream (?view=spectator) carries no turns.
      if (ev.detail.source.url && ev.detail.source.url.indexOf("view=spectator") >= 0) return;
      ev.detail.source.addEventListener("turn", onTurn);
      ev.detail.source.addEventListener("notice", onNotice);
    });
  }

  // The settings button that asks the browser for notifications: never on
  // page load, only when pressed.
  function showState(el) {
    var state = document.querySelector("[data-notify-state]");
    if (!state) return;
    if (!("Notification" in window)) { state.textContent = msgs.noNotify; el.disabled = true; return; }
    state.textContent = { granted: msgs.allowed, denied: msgs.blocked, "default": "" }[Notification.permission] || "";
  }
  document.addEventListener("DOMContentLoaded", function () {
    var el = document.querySelector("[data-notify-permission]");
    if (el) showState(el);
  });
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-notify-permission]");
    if (!el || !("Notification" in window)) return;
    Notification.requestPermission().then(function () { showState(el); });
  });
})();

// The table by keyboard and screen reader: T takes, N says No thanks!
// (not while typing in a field); after a move the focus goes back to the
// action buttons (or the status line) instead of being lost; and every new
// board's move, told in words, goes to one live region outside the board
// so that a screen reader hears other players' moves too.
(function () {
  "use strict";
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var key = ev.key.toUpperCase();
    var btn = document.querySelector('#board-wrap button[data-key="' + key + '"]');
    if (!btn || btn.disabled) return;
    ev.preventDefault();
    // A board swapped in a moment ago may not have its htmx behaviour yet:
    // give it now, so the move is sent in the page, not as a page load.
    if (window.htmx && btn.form) htmx.process(btn.form);
    btn.click();
  });

  // A new board comes either as the answer to the player's own move or
  // over the stream; both replace #board-wrap's content, which is watched.
  var announced = null, refocusUntil = 0;
  function lost() {
    var a = document.activeElement;
    return !a || a === document.body || !document.contains(a);
  }
  function boardChanged() {
    var b = document.getElementById("board"), region = document.getElementById("announcer");
    if (b && region && b.dataset.announce && b.dataset.announce !== announced) {
      announced = b.dataset.announce;
      region.textContent = announced;
    }
    if (!lost()) return;
    var first = document.querySelector("#board-wrap [data-testid=actions] button:not([disabled])");
    var status = document.querySelector("#board-wrap [data-testid=status]");
    // The player's own move: focus stays at the table. A turn coming to
    // them: focus goes to the buttons, if it was nowhere in particular.
    if (first && (Date.now() < refocusUntil || document.activeElement === document.body)) first.focus();
    else if (Date.now() < refocusUntil && status) { status.tabIndex = -1; status.focus(); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var wrap = document.getElementById("board-wrap"), b = document.getElementById("board");
    if (!wrap) return;
    announced = b ? b.dataset.announce || "" : "";
    new MutationObserver(boardChanged).observe(wrap, { childList: true });
  });
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var wrap = document.getElementById("board-wrap");
    if (wrap && ev.target && wrap.contains(ev.target) && ev.detail.requestConfig && ev.detail.requestConfig.verb === "post") {
      refocusUntil = Date.now() + 3000;
    }
  });

  // A form that asks before it acts (data-confirm), when htmx is not there
  // to ask (hx-confirm does it otherwise).
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f.dataset && f.dataset.confirm && !f.hasAttribute("hx-post") && !window.confirm(f.dataset.confirm)) ev.preventDefault();
  });
})();

// A board never goes back in time: the answer to the player's own move can
// arrive after the stream has already brought the boards of the moves that
// followed it (bots move fast); an older board is then not swapped in over
// a newer one. Versions of a game only grow.
(function () {
  "use strict";
  function versionIn(html) {
    var m = /id="board" data-version="(\d+)"/.exec(html || "");
    return m ? Number(m[1]) : null;
  }
  function older(html) {
    var cur = document.getElementById("board"), v = versionIn(html);
    return !!cur && v !== null && v < Number(cur.dataset.version);
  }
  document.addEventListener("htmx:beforeSwap", function (ev) {
    if (ev.detail.target && ev.detail.target.id === "board-wrap" && older(ev.detail.serverResponse)) ev.detail.shouldSwap = false;
  });
  document.addEventListener("htmx:sseBeforeMessage", function (ev) {
    if (ev.detail && ev.detail.type === "board" && older(ev.detail.data)) ev.preventDefault();
  });
})();

// A tournament's page and /tv. The featured table is swapped only when it
// is another game (the stream sends it with every change of the
// standings); the viewer's own panel reads itself again when the event's
// status changes; /tv moves on to the next game a few seconds after its
// game ends, or as soon as one starts when it shows none.
(function () {
  "use strict";
  var lastStatus = null;
  document.addEventListener("DOMContentLoaded", function () {
    var b = document.querySelector('#tournament-board [data-status]');
    lastStatus = b ? b.dataset.status : null;
  });
  document.addEventListener("htmx:sseBeforeMessage", function (ev) {
    if (!ev.detail || ev.detail.type !== "featured") return;
    var m = /data-featured="(\d+)"/.exec(ev.detail.data || ""), cur = document.querySelector("#featured [data-featured]");
    var now = cur ? cur.dataset.featured : null, next = m ? m[1] : null;
    if (now === next) ev.preventDefault();
  });
  var leaving = false;
  document.addEventListener("htmx:afterSettle", function (ev) {
    var t = ev.target;
    if (t && t.id === "tournament-board") {
      var b = t.querySelector("[data-status]");
      if (b && lastStatus !== null && b.dataset.status !== lastStatus) htmx.trigger(document.body, "nt:tournament-status");
      if (b) lastStatus = b.dataset.status;
    }
    var tv = document.getElementById("tv");
    if (tv && tv.contains(t)) {
      var board = tv.querySelector("#board");
      if (board && board.dataset.status === "finished" && !leaving) {
        leaving = true;
        setTimeout(function () { leaving = false; htmx.trigger(document.body, "nt:tv-next"); }, 4000);
      }
    }
  });
  document.addEventListener("nt:lists", function () {
    if (document.querySelector('[data-testid="tv-empty"]')) htmx.trigger(document.body, "nt:tv-next");
  });
})();

// The replay steps with the arrow keys (← back, → next; Home and End to the
// ends), in place like its buttons.
(function () {
  "use strict";
  var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (ev) {
    if (!document.getElementById("replay") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var role = keys[ev.key];
    var link = role && document.querySelector('#replay [data-replay="' + role + '"]');
    if (!link) return;
    ev.preventDefault();
    if (window.htmx) htmx.process(link);
    link.click();
  });
  // After a step, focus stays on the button pressed (or its place).
  document.addEventListener("htmx:afterSettle", function (ev) {
    if (!ev.detail.elt || !ev.detail.elt.dataset || !ev.detail.elt.dataset.replay) return;
    var again = document.querySelector('#replay [data-replay="' + ev.detail.elt.dataset.replay + '"]') || document.querySelector('#replay [data-testid="replay-step"]');
    if (again) { if (!again.hasAttribute("tabindex") && again.tagName !== "A") again.tabIndex = -1; again.focus(); }
  });
})();

// Every form posts the CSRF token. A form the stream drew once for many
// viewers (the board, the chat) carries none of its own: before it is sent
// as a plain form, it is given the page's (htmx sends it as a header).
(function () {
  "use strict";
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (!f || !f.getAttribute || (f.getAttribute("method") || "").toLowerCase() !== "post" || f.querySelector('input[name="_csrf"]')) return;
    var tok = window.ntCSRF();
    if (!tok) return;
    var input = document.createElement("input");
    input.type = "hidden"; input.name = "_csrf"; input.value = tok;
    f.appendChild(input);
  }, true);
})();

// Content swapped in a moment ago (by the stream, say) may be used before
// htmx has given it its behaviour; then a form would post as a page load.
// Such a form or link is given its behaviour on the spot and used through
// htmx instead.
(function () {
  "use strict";
  function fresh(el) { return window.htmx && el && !el["htmx-internal-data"] && document.contains(el); }
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (!f.hasAttribute || !f.hasAttribute("hx-post") || !fresh(f)) return;
    ev.preventDefault();
    ev.stopPropagation();
    htmx.process(f);
    htmx.trigger(f, "submit");
  }, true);
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a[hx-get]");
    if (!a || !fresh(a) || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    ev.stopPropagation();
    htmx.process(a);
    htmx.trigger(a, "click");
  }, true);
})();

// Table chat: times in the reader's own clock, the newest message in view,
// and the box ready for the next message once one is sent.
(function () {
  function localTimes(root) {
    root.querySelectorAll("time[data-local-time]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d)) el.textContent = d.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" });
      el.removeAttribute("data-local-time");
    });
  }
  function toBottom() {
    var log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  document.addEventListener("DOMContentLoaded", function () { localTimes(document); toBottom(); });
  document.addEventListener("htmx:afterSettle", function () {
    localTimes(document);
    var form = document.getElementById("chat-form");
    if (form && form.hasAttribute("data-sent")) {
      form.removeAttribute("data-sent");
      toBottom();
      var input = document.getElementById("chat-text");
      if (input) input.focus();
    }
  });
  // A screen reader hears each new message once (the list itself is
  // replaced whole by the stream, so it cannot be a live region).
  var lastSeen = null;
  function newest() {
    var items = document.querySelectorAll('#chat-log [data-testid="chat-message"]');
    return items.length ? items[items.length - 1] : null;
  }
  function announceChat() {
    var li = newest(), region = document.getElementById("announcer");
    if (!li) return;
    var id = Number(li.dataset.id);
    if (lastSeen !== null && id > lastSeen) {
      var who = li.querySelector('[data-testid="chat-author"]'), body = li.querySelector('[data-testid="chat-body"]');
      if (who && body) {
        var line = who.textContent.trim() + ": " + body.textContent.trim();
        if (region) region.textContent = line;
        if (who.textContent.trim() !== document.body.dataset.me) alertChat(line);
      }
    }
    lastSeen = Math.max(lastSeen || 0, id);
  }
  // Another player's message at the player's own table, while the tab is
  // hidden: the turn's sound (if the player chose it) and a browser
  // notification (if they allowed them), as for a turn.
  function alertChat(line) {
    var box = document.querySelector("[data-read-url]");
    if (!box || !document.hidden) return;
    if ("turnSound" in document.body.dataset && window.ntBeep) window.ntBeep();
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    var game = (/\/games\/(\d+)/.exec(box.getAttribute("data-read-url")) || [])[1];
    var n = new Notification(window.ntMsgs.fill(window.ntMsgs.chatTitle, game), { body: line, tag: "nt-chat-" + game });
    n.onclick = function () { window.focus(); location.hash = "chat"; };
  }
  // A player who has the table in view has read its chat: the server is
  // told, so their list of games stops counting those messages as new (the
  // page itself counted as read what it showed when it was drawn).
  var readSent = 0;
  function tellRead() {
    var box = document.querySelector("[data-read-url]"), li = newest();
    if (!box || !li || document.visibilityState !== "visible") return;
    var id = Number(li.dataset.id);
    if (!(id > readSent)) return;
    readSent = id;
    var headers = { "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": window.ntCSRF() };
    fetch(box.getAttribute("data-read-url"), { method: "POST", headers: headers, body: "last=" + id, credentials: "same-origin" }).catch(function () { readSent = 0; });
  }
  document.addEventListener("DOMContentLoaded", function () { var li = newest(); lastSeen = readSent = li ? Number(li.dataset.id) : 0; });
  document.addEventListener("htmx:sseMessage", function () { localTimes(document); toBottom(); announceChat(); tellRead(); });
  document.addEventListener("htmx:afterSettle", function (ev) { if (ev.target && ev.target.id === "chat-live") tellRead(); });
  document.addEventListener("visibilitychange", tellRead);
})();

// The installable site: the service worker (cached assets, the offline
// page, Web Push notifications) is registered on every page; the offline
// page reloads itself once the server answers; "Notify this device" in
// Settings asks the browser's permission (only when pressed), subscribes
// to its push service with the site's key and hands the subscription to
// the server.
(function () {
  "use strict";
  var msgs = window.ntMsgs || {};
  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (!document.querySelector("[data-offline]")) return;
    function check() {
      fetch("/healthz", { cache: "no-store" }).then(function (r) {
        if (r.ok) location.reload();
      }).catch(function () {});
    }
    window.addEventListener("online", check);
    setInterval(check, 3000);
  });

  function pushSupported() {
    return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  }
  function keyBytes(b64) {
    var s = (b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(s), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }
  function say(text) {
    var el = document.querySelector("[data-push-state]");
    if (el) el.textContent = text;
  }
  // send hands a subscription to the server and shows the answer.
  function send(sub) {
    return fetch("/settings/devices", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": window.ntCSRF() },
      body: JSON.stringify(sub)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (r.ok) { location.hash = "devices"; location.reload(); return; }
        say(j.error || msgs.pushFailed);
      });
    });
  }
  window.ntSendSubscription = send;
  document.addEventListener("DOMContentLoaded", function () {
    var btn = document.querySelector("[data-push-subscribe]");
    if (!btn) return;
    if (!pushSupported()) {
      btn.disabled = true;
      var note = document.querySelector("[data-push-unsupported]");
      if (note) note.hidden = false;
      return;
    }
    if (Notification.permission === "denied") { say(msgs.blocked); return; }
    // Mark the row of this browser, if the server still has its
    // subscription (the button renews one it has forgotten).
    navigator.serviceWorker.getRegistration("/").then(function (reg) {
      return reg && reg.pushManager.getSubscription();
    }).then(function (sub) {
      if (!sub) return;
      document.querySelectorAll("[data-endpoint]").forEach(function (row) {
        if (row.dataset.endpoint !== sub.endpoint) return;
        row.querySelector("[data-this-device]").hidden = false;
        say(msgs.pushOn);
      });
    }).catch(function () {});
  });
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-push-subscribe]");
    if (!btn || !pushSupported()) return;
    btn.disabled = true;
    say(msgs.pushAsking);
    Notification.requestPermission().then(function (perm) {
      if (perm !== "granted") { say(msgs.blocked); return; }
      return navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
        return navigator.serviceWorker.ready;
      }).then(function (reg) {
        return reg.pushManager.getSubscription().then(function (old) {
          return old || reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(btn.dataset.pushSubscribe) });
        });
      }).then(function (sub) { return send(sub.toJSON()); });
    }).catch(function () { say(msgs.pushFailed); }).then(function () { btn.disabled = false; });
  });
})();
