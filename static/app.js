// Page behaviour that htmx attributes do not cover. Loaded as a file: the
// Content-Security-Policy allows no inline script.
(function () {
  "use strict";

  // Count down every element with data-deadline (an RFC 3339 time).
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = Math.max(0, Math.floor((Date.parse(el.dataset.deadline) - now) / 1000));
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      var text = d > 0 ? d + "d " + h + "h" : h > 0 ? h + "h " + m + "m" : m + ":" + String(s).padStart(2, "0");
      el.textContent = left === 0 ? "time is up" : text;
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSettle", tick);

  // Copy buttons: <button data-copy="text">.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn || !navigator.clipboard) return;
    navigator.clipboard.writeText(btn.dataset.copy).then(function () {
      var was = btn.textContent;
      btn.textContent = "Copied";
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
})();
