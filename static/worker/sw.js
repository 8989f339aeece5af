// The site's service worker. It caches only the content-hashed static
// assets (never a page: pages carry personal data) and the offline page,
// answers a page load that fails for want of a connection with that
// offline page, and shows the notifications the server pushes (Web Push),
// opening or focusing the table a click is about.
"use strict";

var VERSION = "/*VERSION*/";
var ASSETS = [/*ASSETS*/];
var CACHE = "nothanks-" + VERSION;
var OFFLINE = "/offline";

self.addEventListener("install", function (ev) {
  ev.waitUntil(caches.open(CACHE).then(function (c) {
    return c.addAll(ASSETS.concat([new Request(OFFLINE, { cache: "reload" })]));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (ev) {
  ev.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("nothanks-") === 0 && k !== CACHE; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (ev) {
  var req = ev.request;
  if (req.method !== "GET") return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (ASSETS.indexOf(url.pathname) >= 0) {
    // A hashed name never changes its content: the cache answers first.
    ev.respondWith(caches.match(req).then(function (hit) { return hit || fetch(req); }));
    return;
  }
  if (req.mode === "navigate") {
    // Pages always come from the server; only when it cannot be reached
    // does the offline page stand in.
    ev.respondWith(fetch(req).catch(function () {
      return caches.match(OFFLINE).then(function (hit) {
        return hit || new Response("No connection.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
      });
    }));
  }
});

self.addEventListener("push", function (ev) {
  var data = {};
  try { data = ev.data ? ev.data.json() : {}; } catch (e) { data = {}; }
  var title = data.title || "No Thanks!";
  ev.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    tag: data.tag || undefined,
    renotify: !!data.tag,
    lang: data.lang || undefined,
    icon: ASSETS.filter(function (a) { return a.indexOf("/static/icon-192.") === 0; })[0],
    data: { url: data.url || "/", kind: data.kind || "" }
  }));
});

self.addEventListener("notificationclick", function (ev) {
  ev.notification.close();
  var target = new URL((ev.notification.data && ev.notification.data.url) || "/", self.location.origin).href;
  ev.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (list) {
    // A tab on that very page is focused; else a tab of the site is taken
    // there; else a new window opens.
    for (var i = 0; i < list.length; i++) {
      if (list[i].url === target && "focus" in list[i]) return list[i].focus();
    }
    for (var j = 0; j < list.length; j++) {
      if ("navigate" in list[j] && new URL(list[j].url).origin === self.location.origin) {
        var c = list[j];
        return c.focus().then(function () { return c.navigate(target); });
      }
    }
    return self.clients.openWindow(target);
  }));
});
