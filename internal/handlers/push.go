package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/push"
	"nothanks/internal/views"
	"nothanks/static"
)

// The installable site: its manifest, its service worker and the page the
// worker shows when the server cannot be reached.

// manifestIcon is one icon of the manifest.
type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose,omitempty"`
}

// manifest is the web app manifest, in the request's language.
func (s *Server) manifest(c echo.Context) error {
	ctx := c.Request().Context()
	m := map[string]any{
		"id":               "/",
		"name":             tr(c, "No Thanks! · play online"),
		"short_name":       tr(c, "No Thanks!"),
		"description":      tr(c, "Play the card game No Thanks! with people, live or by correspondence, and climb the ladder."),
		"lang":             string(i18n.From(ctx)),
		"start_url":        "/",
		"scope":            "/",
		"display":          "standalone",
		"background_color": "#fbf7ef",
		"theme_color":      views.ThemeColor,
		"icons": []manifestIcon{
			{Src: static.Path("icon-192.png"), Sizes: "192x192", Type: "image/png", Purpose: "any"},
			{Src: static.Path("icon-512.png"), Sizes: "512x512", Type: "image/png", Purpose: "any"},
			{Src: static.Path("icon-maskable-512.png"), Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
			{Src: static.Path("icon.svg"), Sizes: "any", Type: "image/svg+xml", Purpose: "any"},
		},
		"shortcuts": []map[string]string{
			{"name": tr(c, "My games"), "url": "/my/games"},
			{"name": tr(c, "Tournaments"), "url": "/tournaments"},
		},
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Language, Cookie")
	return c.Blob(http.StatusOK, "application/manifest+json", b)
}

// serviceWorker serves the worker at the root, so that its scope is the
// whole site; browsers check it for a new version on each visit.
func (s *Server) serviceWorker(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", static.ServiceWorker())
}

// offline is the page the service worker keeps for when the server cannot
// be reached. It is cached, so it carries nothing personal: no name, no
// menu of a member, no form token.
func (s *Server) offline(c echo.Context) error {
	p := views.Page{Title: tr(c, "No connection"), Path: c.Request().URL.Path, Here: "/", Bare: true}
	c.Response().Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	if err := views.OfflinePage(p).Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}

// Devices notified by Web Push, in Settings.

// subscribeDevice stores the browser's push subscription, sent by the
// page's script as JSON once the person pressed "Notify this device" and
// allowed it. It answers JSON: the device, or the reason it was refused.
func (s *Server) subscribeDevice(c echo.Context) error {
	var sub push.Subscription
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, 8<<10))
	if err == nil {
		err = json.Unmarshal(body, &sub)
	}
	if err != nil {
		return c.JSON(http.StatusBadRequest, map[string]string{"error": tr(c, "The browser sent no push subscription. Try again, or use another browser.")})
	}
	d, err := s.push.Subscribe(c.Request().Context(), currentUser(c).ID, sub, c.Request().UserAgent())
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		return c.JSON(statusOf(apperr.CodeOf(err)), map[string]string{"error": messageOf(c.Request().Context(), err)})
	}
	s.setFlash(c, "ok", tr(c, "This device ({{.Name}}) will be notified.", "Name", d.Name))
	return c.JSON(http.StatusCreated, map[string]any{"id": d.ID, "name": d.Name})
}

func deviceID(c echo.Context) int64 {
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	return id
}

// removeDevice forgets a device.
func (s *Server) removeDevice(c echo.Context) error {
	if err := s.push.Remove(c.Request().Context(), currentUser(c).ID, deviceID(c)); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The device is removed: it gets no more notifications."))
	return redirect(c, "/settings#devices")
}

// renameDevice names a device; a name it cannot take shows the settings
// again with the name as typed and what is wrong with it.
func (s *Server) renameDevice(c echo.Context) error {
	id, name := deviceID(c), c.FormValue("name")
	d, err := s.push.Rename(c.Request().Context(), currentUser(c).ID, id, name)
	if err != nil && apperr.CodeOf(err) != apperr.Invalid {
		return err
	}
	if err != nil {
		return s.settingsRefused(c, err, map[string]string{"name": name}, func(v *views.SettingsView, f views.Form) {
			for i := range v.Devices.Devices {
				if v.Devices.Devices[i].ID == id {
					v.Devices.Devices[i].Rename = f
				}
			}
		})
	}
	s.setFlash(c, "ok", tr(c, "The device is called {{.Name}} now.", "Name", d.Name))
	return redirect(c, "/settings#devices")
}

// testDevice sends a test notification to a device.
func (s *Server) testDevice(c echo.Context) error {
	if err := s.push.Test(c.Request().Context(), currentUser(c).ID, deviceID(c)); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "A test notification is on its way: it should arrive within a few seconds."))
	return redirect(c, "/settings#devices")
}

// savePushSettings stores which kinds of notification the devices get.
func (s *Server) savePushSettings(c echo.Context) error {
	on := func(k string) bool { return c.FormValue(k) == "true" || c.FormValue(k) == "on" }
	p := db.PushSettings{YourTurn: on("push_your_turn"), Reminder: on("push_reminder"), TimedOut: on("push_timed_out"), GameOver: on("push_game_over"),
		Invite: on("push_invite"), Rematch: on("push_rematch"), Chat: on("push_chat"), Tournament: on("push_tournament")}
	if err := s.push.SetSettings(c.Request().Context(), currentUser(c).ID, p); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "Your device notification settings are saved."))
	return redirect(c, "/settings#devices")
}

// devicesView is the Settings section of the devices.
func (s *Server) devicesView(c echo.Context) (views.DevicesView, error) {
	ctx := c.Request().Context()
	u := currentUser(c)
	v := views.DevicesView{PublicKey: s.push.PublicKey()}
	ds, err := s.push.Devices(ctx, u.ID)
	if err != nil {
		return v, err
	}
	lang, loc := i18n.From(ctx), s.userLocation(c)
	for _, d := range ds {
		dv := views.DeviceView{ID: d.ID, Name: d.Name, Endpoint: d.Endpoint, Added: i18n.DateTime(lang, d.CreatedAt.In(loc))}
		if d.LastDeliveryAt != nil {
			dv.LastDelivery = i18n.DateTime(lang, d.LastDeliveryAt.In(loc))
		}
		if d.LastError != nil {
			dv.Error = *d.LastError
		}
		v.Devices = append(v.Devices, dv)
	}
	p, err := s.push.Settings(ctx, u.ID)
	if err != nil {
		return v, err
	}
	on := strconv.FormatBool
	v.Kinds = views.Form{Values: map[string]string{"push_your_turn": on(p.YourTurn), "push_reminder": on(p.Reminder), "push_timed_out": on(p.TimedOut),
		"push_game_over": on(p.GameOver), "push_invite": on(p.Invite), "push_rematch": on(p.Rematch), "push_chat": on(p.Chat), "push_tournament": on(p.Tournament)}}
	return v, nil
}

// Devices in the JSON API: what Settings does, for an app that holds a
// push subscription of its own (docs/push.md).

// apiDevice is a device notified by Web Push, as the API gives it.
type apiDevice struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	AddedAt  string `json:"added_at"`
	// LastDeliveryAt and LastError: the last push it got, the last one
	// its push service refused.
	LastDeliveryAt *string `json:"last_delivery_at,omitempty"`
	LastError      *string `json:"last_error,omitempty"`
}

func apiDeviceOf(d db.PushDevice) apiDevice {
	a := apiDevice{ID: d.ID, Name: d.Name, Endpoint: d.Endpoint, AddedAt: apiTime(d.CreatedAt), LastError: d.LastError}
	if d.LastDeliveryAt != nil {
		t := apiTime(*d.LastDeliveryAt)
		a.LastDeliveryAt = &t
	}
	return a
}

// apiPushKinds are the kinds of push the devices get.
type apiPushKinds struct {
	YourTurn   *bool `json:"your_turn"`
	Reminder   *bool `json:"reminder"`
	TimedOut   *bool `json:"timed_out"`
	GameOver   *bool `json:"game_over"`
	Invite     *bool `json:"invitation"`
	Rematch    *bool `json:"rematch"`
	Chat       *bool `json:"chat"`
	Tournament *bool `json:"tournament"`
}

// fields pairs each kind with its setting.
func (k *apiPushKinds) fields(p *db.PushSettings) []struct {
	in  **bool
	out *bool
} {
	return []struct {
		in  **bool
		out *bool
	}{{&k.YourTurn, &p.YourTurn}, {&k.Reminder, &p.Reminder}, {&k.TimedOut, &p.TimedOut}, {&k.GameOver, &p.GameOver},
		{&k.Invite, &p.Invite}, {&k.Rematch, &p.Rematch}, {&k.Chat, &p.Chat}, {&k.Tournament, &p.Tournament}}
}

func apiPushKindsOf(p db.PushSettings) apiPushKinds {
	var k apiPushKinds
	for _, f := range k.fields(&p) {
		*f.in = f.out
	}
	return k
}

func apiTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// apiPushDevices lists the token owner's devices, the kinds they get and
// the server's public key (the applicationServerKey of a subscription).
func (s *Server) apiPushDevices(c echo.Context) error {
	ctx := c.Request().Context()
	u := apiUser(c)
	ds, err := s.push.Devices(ctx, u.ID)
	if err != nil {
		return err
	}
	out := []apiDevice{}
	for _, d := range ds {
		out = append(out, apiDeviceOf(d))
	}
	p, err := s.push.Settings(ctx, u.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"public_key": s.push.PublicKey(), "max_devices": db.MaxPushDevices, "devices": out, "kinds": apiPushKindsOf(p)})
}

// apiAddPushDevice stores a push subscription ({"endpoint", "keys":
// {"p256dh", "auth"}}, as a browser's PushSubscription.toJSON() gives
// it), named after the request's User-Agent.
func (s *Server) apiAddPushDevice(c echo.Context) error {
	var sub push.Subscription
	// What a browser's toJSON() gives (endpoint, expirationTime, keys)
	// and a name; any other field, or a value of the wrong type, is named.
	if err := decodeBody(c, &sub, i18n.M(`The body is not a push subscription: {"endpoint": "https://…", "keys": {"p256dh": "…", "auth": "…"}}.`), bodyRules{required: true}); err != nil {
		return err
	}
	d, err := s.push.Subscribe(c.Request().Context(), apiUser(c).ID, sub, c.Request().UserAgent())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, apiDeviceOf(d))
}

// apiRenamePushDevice names a device: {"name"}.
func (s *Server) apiRenamePushDevice(c echo.Context) error {
	id, err := apiDeviceID(c)
	if err != nil {
		return err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeBody(c, &body, i18n.M(`The body is the device's new name: {"name": "…"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	d, err := s.push.Rename(c.Request().Context(), apiUser(c).ID, id, body.Name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiDeviceOf(d))
}

// apiDeviceID reads a device's id from the path.
func apiDeviceID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.E(apperr.NotFound, "You have no such device: it was removed already.")
	}
	return id, nil
}

// apiRemovePushDevice forgets a device.
func (s *Server) apiRemovePushDevice(c echo.Context) error {
	id, err := apiDeviceID(c)
	if err != nil {
		return err
	}
	if err := s.push.Remove(c.Request().Context(), apiUser(c).ID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiTestPushDevice sends a device a test notification.
func (s *Server) apiTestPushDevice(c echo.Context) error {
	id, err := apiDeviceID(c)
	if err != nil {
		return err
	}
	if err := s.push.Test(c.Request().Context(), apiUser(c).ID, id); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"status": "queued"})
}

// apiSetPushKinds changes which kinds of push the devices get: the kinds
// named in the body, the others as they were.
func (s *Server) apiSetPushKinds(c echo.Context) error {
	var in apiPushKinds
	if err := apiBind(c, &in, i18n.M("The body is an object of kinds, each true or false: your_turn, reminder, timed_out, game_over, invitation, rematch, chat, tournament.")); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := apiUser(c)
	p, err := s.push.Settings(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, f := range in.fields(&p) {
		if *f.in != nil {
			*f.out = **f.in
		}
	}
	if err := s.push.SetSettings(ctx, u.ID, p); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiPushKindsOf(p))
}
