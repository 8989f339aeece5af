package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"nothanks/internal/apptest"
	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/notify"
	"nothanks/internal/push/pushtest"
)

// pushSetup is mailSetup with a push service of the tests' own and, for
// each player, a browser session that subscribed a device in Settings.
type pushSetup struct {
	*mailSetup
	push     *pushtest.Server
	browsers map[string]*apptest.Client
	devices  map[string]*pushtest.Device
}

func allowLocalPush() apptest.Option {
	return apptest.WithConfig(func(c *config.Config) { c.PushAllowLocal = true })
}

func newPushSetup(t *testing.T) *pushSetup {
	t.Helper()
	ps := pushtest.New()
	t.Cleanup(ps.Close)
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp), allowLocalPush())
	m := &mailSetup{s: s, smtp: smtp}
	p := &pushSetup{mailSetup: m, push: ps, browsers: map[string]*apptest.Client{}, devices: map[string]*pushtest.Device{}}
	for _, name := range []string{"Mia", "Noa", "Ola"} {
		api := s.APIFor(name)
		if _, err := s.Store.VerifyEmail(context.Background(), api.ID, strings.ToLower(name)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		m.players = append(m.players, api)
		b := s.Client()
		if res := b.Login(name, apptest.Password); res.Status != http.StatusSeeOther {
			t.Fatalf("login %s: %d", name, res.Status)
		}
		p.browsers[name] = b
		d := ps.NewDevice(name + "'s phone")
		if name == "Noa" {
			// Firefox for Android: its push service takes 3,070 bytes.
			ps.LimitBody(d, 3070)
		}
		p.devices[name] = d
		if st, body := subscribe(t, b, d.Endpoint, d.P256dh, d.Auth, androidChrome); st != http.StatusCreated {
			t.Fatalf("subscribe %s: %d %s", name, st, body)
		}
	}
	m.game = m.newGame(t)
	m.send(t)
	return p
}

const androidChrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"

// subscribe hands a subscription to the Settings page's endpoint as the
// page's script does: JSON, the session's cookie and the CSRF header.
func subscribe(t *testing.T, b *apptest.Client, endpoint, p256dh, auth, ua string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"endpoint": endpoint, "keys": map[string]string{"p256dh": p256dh, "auth": auth}})
	req, _ := http.NewRequest(http.MethodPost, b.URL()+"/settings/devices", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", b.CSRFToken())
	req.Header.Set("User-Agent", ua)
	res := b.Do(req)
	return res.Status, res.Body
}

// deliver runs the push outbox once.
func (p *pushSetup) deliver(t *testing.T) int {
	t.Helper()
	n, err := p.s.App.Push.RunOutbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// payload decodes a push as the service worker does.
type payload struct {
	Kind, Title, Body, URL, Tag, Lang string
}

func decode(t *testing.T, pu pushtest.Push) payload {
	t.Helper()
	var out payload
	if err := json.Unmarshal(pu.Payload, &out); err != nil {
		t.Fatalf("push payload is not JSON: %q", pu.Payload)
	}
	return out
}

func (p *pushSetup) pushesTo(t *testing.T, name string) []payload {
	t.Helper()
	var out []payload
	for _, pu := range p.push.PushesTo(p.devices[name]) {
		out = append(out, decode(t, pu))
	}
	return out
}

// pushesOfKind is pushesTo for one kind of push.
func (p *pushSetup) pushesOfKind(t *testing.T, name, kind string) []payload {
	t.Helper()
	var out []payload
	for _, pl := range p.pushesTo(t, name) {
		if pl.Kind == kind {
			out = append(out, pl)
		}
	}
	return out
}

func (p *pushSetup) noRejections(t *testing.T) {
	t.Helper()
	if r := p.push.Rejections(); len(r) > 0 {
		t.Fatalf("the push service refused pushes: %v", r)
	}
}

func TestPushYourTurnInThePlayersLanguageWithoutHiddenInformation(t *testing.T) {
	p := newPushSetup(t)
	ctx := context.Background()
	// Noa reads Spanish.
	var noa *apptest.API
	for _, pl := range p.players {
		if pl.Name == "Noa" {
			noa = pl
		}
	}
	if err := p.s.Store.SetLanguage(ctx, noa.ID, "es"); err != nil {
		t.Fatal(err)
	}
	// Pass until it is Noa's turn: nothing is pushed before the wait.
	var next *apptest.API
	for i := 0; i < 3; i++ {
		next = p.pass(t, p.game)
		if next.Name == "Noa" {
			break
		}
	}
	if next.Name != "Noa" {
		t.Fatal("Noa's turn never came")
	}
	p.deliver(t)
	if n := len(p.push.PushesTo(p.devices["Noa"])); n != 0 {
		t.Fatalf("%d pushes before the %s wait", n, games.YourTurnDelay)
	}
	p.s.Clock.Advance(games.YourTurnDelay + time.Second)
	p.deliver(t)
	p.noRejections(t)
	got := p.push.PushesTo(p.devices["Noa"])
	if len(got) != 1 {
		t.Fatalf("%d pushes to Noa, want 1", len(got))
	}
	pl := decode(t, got[0])
	// The expectation is worked out from Noa's own view through the API,
	// and the Spanish words from the rules' Spanish terms by hand.
	_, v := noa.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", p.game), nil)
	view := v["view"].(map[string]any)
	card, pot := int(view["active_card"].(float64)), int(view["pot"].(float64))
	viewer := int(view["viewer"].(float64))
	mine := int(view["seats"].([]any)[viewer].(map[string]any)["tokens"].(float64))
	wantTitle := fmt.Sprintf("Tu turno en la partida n.º %d de ¡No, gracias!", p.game)
	if pl.Title != wantTitle || pl.Lang != "es" || pl.Kind != "your_turn" {
		t.Errorf("push: %+v, want title %q in es", pl, wantTitle)
	}
	if !strings.Contains(pl.Body, fmt.Sprintf("%d", card)) || !strings.Contains(pl.Body, fmt.Sprintf("%d fichas", mine)) {
		t.Errorf("body %q does not name card %d (pot %d) and Noa's %d tokens", pl.Body, card, pot, mine)
	}
	// Only Noa's own tokens: the other seats' counts are hidden from her.
	if strings.Count(pl.Body, "fichas") > 2 {
		t.Errorf("body names more token counts than the pot and Noa's own: %q", pl.Body)
	}
	if pl.URL != fmt.Sprintf("/games/%d", p.game) || pl.Tag != fmt.Sprintf("game-%d", p.game) {
		t.Errorf("click URL %q, tag %q", pl.URL, pl.Tag)
	}
	if got[0].Urgency != "high" || got[0].Topic != fmt.Sprintf("turn-%d", p.game) {
		t.Errorf("urgency %q, topic %q", got[0].Urgency, got[0].Topic)
	}
	// TTL: up to the deadline, a day after the move less the 2-minute wait.
	if want := 86400 - int((games.YourTurnDelay + time.Second).Seconds()); got[0].TTL < want-5 || got[0].TTL > want+5 {
		t.Errorf("TTL %d, want about %d", got[0].TTL, want)
	}
	if !strings.HasPrefix(got[0].Subscriber, "mailto:") {
		t.Errorf("VAPID subject %q", got[0].Subscriber)
	}
	if len(got[0].Payload) > 4000 {
		t.Errorf("payload of %d bytes", len(got[0].Payload))
	}
	// Nobody else was pushed anything, and the turn is pushed once.
	for _, name := range []string{"Mia", "Ola"} {
		if n := len(p.push.PushesTo(p.devices[name])); n != 0 {
			t.Errorf("%d pushes to %s", n, name)
		}
	}
	p.s.Clock.Advance(time.Hour)
	p.deliver(t)
	if n := len(p.push.PushesTo(p.devices["Noa"])); n != 1 {
		t.Errorf("%d pushes to Noa after an hour, want still 1", n)
	}
	// The Settings page shows when the device was last notified.
	page := p.browsers["Noa"].Get("/settings")
	if !strings.Contains(page.TestID("device-row"), "Chrome · Android") || strings.Contains(page.TestID("device-row"), "todavía") {
		t.Errorf("device row: %q", page.TestID("device-row"))
	}
}

func TestPushAndMailTogether(t *testing.T) {
	p := newPushSetup(t)
	next := p.pass(t, p.game)
	p.s.Clock.Advance(games.YourTurnDelay + time.Second)
	// The mail worker runs first: the push is not tried yet, so the mail
	// waits for it.
	p.send(t)
	if n := len(p.smtp.To(addr(next))); n != 0 {
		t.Fatalf("%d mails while the push was on its way", n)
	}
	p.deliver(t)
	if n := len(p.push.PushesTo(p.devices[next.Name])); n != 1 {
		t.Fatalf("%d pushes", n)
	}
	p.s.Clock.Advance(2 * time.Minute)
	p.send(t)
	if n := len(p.smtp.To(addr(next))); n != 0 {
		t.Fatalf("%d mails within %s of the push", n, notify.PushGrace)
	}
	// The player did not open the game: after the grace the mail goes.
	p.s.Clock.Advance(notify.PushGrace)
	p.send(t)
	if n := len(p.smtp.To(addr(next))); n != 1 {
		t.Fatalf("%d mails after the grace with the game unopened, want 1", n)
	}

	// Next turn: the player opens the game after the push; no mail.
	_, v := next.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", p.game), nil)
	if st, _ := next.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/pass", p.game), map[string]any{"version": v["version"]}); st != http.StatusOK {
		t.Fatal("pass")
	}
	third, _ := p.mover(t, p.game)
	p.s.Clock.Advance(games.YourTurnDelay + time.Second)
	p.deliver(t)
	if n := len(p.push.PushesTo(p.devices[third.Name])); n != 1 {
		t.Fatalf("%d pushes to %s", n, third.Name)
	}
	p.s.Clock.Advance(5 * time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := p.browsers[third.Name].Stream(ctx, fmt.Sprintf("/games/%d/events", p.game))
	st.Next(t, "board")
	if err := p.s.App.Watch.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	p.s.Clock.Advance(notify.PushGrace)
	p.send(t)
	if n := len(p.smtp.To(addr(third))); n != 0 {
		t.Errorf("%d mails although %s opened the game after the push", n, third.Name)
	}
	p.noRejections(t)
}

// The longest chat push (three messages of 300 characters that JSON
// escapes to six bytes each) reaches a Firefox for Android device, whose
// push service takes 3,070 bytes: the text is cut at 400 characters.
func TestPushOfALongChatReachesFirefoxForAndroid(t *testing.T) {
	p := newPushSetup(t)
	line := strings.Repeat("<", 300)
	for range 3 {
		if res := p.browsers["Mia"].PostForm(fmt.Sprintf("/games/%d/chat", p.game), url.Values{"text": {line}}); res.Status >= 400 {
			t.Fatalf("chat: %d %s", res.Status, res.Body)
		}
	}
	p.s.Clock.Advance(time.Minute)
	p.deliver(t)
	p.noRejections(t)
	got := p.pushesOfKind(t, "Noa", "chat")
	if len(got) != 1 {
		t.Fatalf("%d chat pushes to Noa's Firefox, want 1", len(got))
	}
	// By hand: 400 characters, the last "…": "Mia: " and 300 "<", a new
	// line, "Mia: " (311 so far) and 88 "<".
	want := "Mia: " + line + "\nMia: " + strings.Repeat("<", 88) + "…"
	if body := got[0].Body; body != want {
		t.Errorf("the text is %d characters: %q", utf8.RuneCountInString(body), body)
	}
}

func TestPushKindsTheirTextsAndClicks(t *testing.T) {
	p := newPushSetup(t)
	ctx := context.Background()
	mia, noa, ola := p.players[0], p.players[1], p.players[2]

	// A chat message at the table while the others are away: one push to
	// each of them after the wait, naming the author; two messages in a
	// row make one push.
	say := func(b *apptest.Client, text string) {
		t.Helper()
		res := b.PostForm(fmt.Sprintf("/games/%d/chat", p.game), url.Values{"text": {text}})
		if res.Status != http.StatusSeeOther && res.Status != http.StatusOK && res.Status != http.StatusNoContent {
			t.Fatalf("chat: %d %s", res.Status, res.Body)
		}
	}
	say(p.browsers["Mia"], "Good luck!")
	say(p.browsers["Mia"], "You will need it.")
	p.deliver(t)
	if n := len(p.push.Pushes()); n != 0 {
		t.Fatalf("%d pushes before the chat's wait", n)
	}
	p.s.Clock.Advance(time.Minute)
	p.deliver(t)
	for _, name := range []string{"Noa", "Ola"} {
		got := p.pushesOfKind(t, name, "chat")
		if len(got) != 1 {
			t.Fatalf("%d chat pushes to %s, want 1", len(got), name)
		}
		want := fmt.Sprintf("2 new messages at game #%d", p.game)
		if got[0].Title != want || got[0].Body != "Mia: Good luck!\nMia: You will need it." || got[0].URL != fmt.Sprintf("/games/%d", p.game) {
			t.Errorf("chat push to %s: %+v, want %q", name, got[0], want)
		}
	}
	if n := len(p.pushesOfKind(t, "Mia", "chat")); n != 0 {
		t.Errorf("the author was pushed her own message %d times", n)
	}
	// Ola turns chat pushes off; Noa reads the chat: neither is pushed.
	if res := p.browsers["Ola"].PostForm("/settings/push", url.Values{"push_your_turn": {"true"}, "push_game_over": {"true"}, "push_rematch": {"true"}, "push_invite": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("push settings: %d", res.Status)
	}
	say(p.browsers["Mia"], "Still there?")
	if err := p.s.App.Chat.MarkRead(ctx, noa.ID, p.game, 1<<40); err != nil {
		t.Fatal(err)
	}
	p.s.Clock.Advance(time.Hour)
	p.deliver(t)
	if n := len(p.pushesOfKind(t, "Ola", "chat")); n != 1 {
		t.Errorf("Ola turned chat off but has %d chat pushes", n)
	}
	if n := len(p.pushesOfKind(t, "Noa", "chat")); n != 1 {
		t.Errorf("Noa read the chat but has %d chat pushes", n)
	}

	// Game over: every player, with the placings as the API gives them.
	apptest.PlayOut(t, p.players, p.game)
	p.deliver(t)
	_, fin := mia.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", p.game), nil)
	var first string
	for i, place := range fin["view"].(map[string]any)["placings"].([]any) {
		if int(place.(float64)) != 1 {
			continue
		}
		for _, pl := range fin["players"].([]any) {
			if pl := pl.(map[string]any); pl["seat"] != nil && int(pl["seat"].(float64)) == i {
				first = pl["name"].(string)
			}
		}
	}
	for _, name := range []string{"Mia", "Noa", "Ola"} {
		got := p.pushesTo(t, name)
		last := got[len(got)-1]
		if last.Kind != "game_over" || last.Title != fmt.Sprintf("No Thanks! game #%d is over", p.game) || !strings.HasPrefix(last.Body, "1st: "+first+", ") {
			t.Errorf("game over push to %s: %+v (winner %s)", name, last, first)
		}
	}

	// A rematch offer reaches the others, not the one who offered.
	if st, body := mia.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/rematch", p.game), nil); st != http.StatusOK && st != http.StatusAccepted {
		t.Fatalf("rematch: %d %v", st, body)
	}
	p.s.Clock.Advance(time.Minute)
	p.deliver(t)
	for _, name := range []string{"Noa", "Ola"} {
		got := p.pushesTo(t, name)
		last := got[len(got)-1]
		if last.Kind != "rematch" || last.Title != fmt.Sprintf("Mia offers to play game #%d again", p.game) {
			t.Errorf("rematch push to %s: %+v", name, last)
		}
	}

	// An invitation: the click opens the table it invites to.
	_, g := mia.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "pace": "correspondence", "turn_seconds": 86400})
	table := int64(g["id"].(float64))
	if st, body := mia.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", table), map[string]any{"username": "Ola"}); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("invite: %d %v", st, body)
	}
	p.deliver(t)
	got := p.pushesTo(t, "Ola")
	last := got[len(got)-1]
	if last.Kind != "invite" || last.URL != fmt.Sprintf("/games/%d", table) || last.Body != "Mia invites you to their table. Accept or decline it there." {
		t.Errorf("invitation push: %+v", last)
	}
	_ = ola
	p.noRejections(t)
}

func TestPushTimeoutAndReminder(t *testing.T) {
	p := newPushSetup(t)
	next := p.pass(t, p.game)
	p.s.Clock.Advance(games.YourTurnDelay + time.Second)
	p.deliver(t)
	// A fifth of the day left: the reminder; past the deadline: the
	// timeout, made by the server.
	p.s.Clock.Advance(games.ReminderAt(time.Time{}.Add(24*time.Hour), 86400).Sub(time.Time{}))
	p.deliver(t)
	got := p.pushesTo(t, next.Name)
	if len(got) != 2 || got[1].Kind != "reminder" || !strings.HasPrefix(got[1].Title, fmt.Sprintf("Reminder: your turn in No Thanks! game #%d ends ", p.game)) {
		t.Fatalf("after the reminder time: %+v", got)
	}
	p.s.Clock.Advance(6 * time.Hour)
	if _, err := p.s.App.Games.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.deliver(t)
	got = p.pushesTo(t, next.Name)
	if last := got[len(got)-1]; last.Kind != "timed_out" || last.Title != fmt.Sprintf("Your time ran out in No Thanks! game #%d", p.game) {
		t.Errorf("after the deadline: %+v", got)
	}
	p.noRejections(t)
}

func TestPushRetriesAfter503AndForgetsAGoneDevice(t *testing.T) {
	p := newPushSetup(t)
	ctx := context.Background()
	next := p.pass(t, p.game)
	d := p.devices[next.Name]
	p.push.FailNext(d, 1, http.StatusServiceUnavailable, "120")
	p.s.Clock.Advance(games.YourTurnDelay + time.Second)
	p.deliver(t)
	if p.push.Requests(d) != 1 || len(p.push.PushesTo(d)) != 0 {
		t.Fatalf("requests %d, pushes %d after a 503", p.push.Requests(d), len(p.push.PushesTo(d)))
	}
	rows, _ := p.s.Store.PushesTo(ctx, next.ID)
	if rows[0].Status != "pending" || rows[0].SendAfter.Before(p.s.Clock.Now().Add(119*time.Second)) {
		t.Fatalf("after a 503 with Retry-After 120: %s, due %s (now %s)", rows[0].Status, rows[0].SendAfter, p.s.Clock.Now())
	}
	p.s.Clock.Advance(time.Minute)
	p.deliver(t)
	if len(p.push.PushesTo(d)) != 0 {
		t.Fatal("retried before Retry-After")
	}
	p.s.Clock.Advance(2 * time.Minute)
	p.deliver(t)
	if len(p.push.PushesTo(d)) != 1 {
		t.Fatalf("%d pushes after the retry", len(p.push.PushesTo(d)))
	}
	// A 429 is retried too, with backoff.
	p.push.FailNext(d, 1, http.StatusTooManyRequests, "")
	if err := p.s.App.Push.Test(ctx, next.ID, deviceOf(t, p, next.Name).ID); err != nil {
		t.Fatal(err)
	}
	p.deliver(t)
	p.s.Clock.Advance(time.Minute)
	p.deliver(t)
	if got := p.pushesTo(t, next.Name); len(got) != 2 || got[1].Kind != "test" {
		t.Fatalf("after a 429 and a retry: %+v", got)
	}
	// 410: the device is forgotten, and listed no more.
	p.push.Gone(d)
	if res := p.browsers[next.Name].PostForm(fmt.Sprintf("/settings/devices/%d/test", deviceOf(t, p, next.Name).ID), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("test push: %d", res.Status)
	}
	p.deliver(t)
	if ds, _ := p.s.Store.PushDevices(ctx, next.ID); len(ds) != 0 {
		t.Errorf("the device is still there after 410: %+v", ds)
	}
	if page := p.browsers[next.Name].Get("/settings"); !page.Has("no-devices") {
		t.Error("Settings still lists the gone device")
	}
	p.noRejections(t)
}

func deviceOf(t *testing.T, p *pushSetup, name string) db.PushDevice {
	t.Helper()
	for _, pl := range p.players {
		if pl.Name == name {
			ds, err := p.s.Store.PushDevices(context.Background(), pl.ID)
			if err != nil || len(ds) == 0 {
				t.Fatalf("no device of %s: %v", name, err)
			}
			return ds[0]
		}
	}
	t.Fatalf("no player %s", name)
	return db.PushDevice{}
}

func TestPushOnceWithTwoInstances(t *testing.T) {
	p := newPushSetup(t)
	other := apptest.NewOn(t, p.s.Store, p.s.DBURL, apptest.WithoutWorkers(), allowLocalPush())
	// Many events at once: every player sends each device 10 tests.
	ctx := context.Background()
	for _, pl := range p.players {
		d := deviceOf(t, p, pl.Name)
		for i := 0; i < 10; i++ {
			if err := p.s.App.Push.Test(ctx, pl.ID, d.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	for _, a := range []*apptest.Server{p.s, other, p.s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.App.Push.RunOutbox(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for name, d := range p.devices {
		if n := p.push.Requests(d); n != 10 {
			t.Errorf("%s's device got %d requests, want 10 (each push once)", name, n)
		}
	}
	p.noRejections(t)
}

func TestDevicesInSettings(t *testing.T) {
	ps := pushtest.New()
	defer ps.Close()
	s := apptest.New(t, apptest.WithoutWorkers(), allowLocalPush())
	b := s.Client().Register("Pia")
	page := b.Get("/settings")
	key := page.Doc().Find("[data-push-subscribe]").AttrOr("data-push-subscribe", "")
	if len(key) != 87 { // 65 bytes, base64url without padding
		t.Fatalf("the button's applicationServerKey %q", key)
	}
	if !page.Has("no-devices") {
		t.Error("a new account lists devices")
	}
	d := ps.NewDevice("laptop")
	for name, c := range map[string]struct {
		endpoint, p256dh, auth string
		status                 int
		says                   string
	}{
		"not a URL":      {"push me", d.P256dh, d.Auth, 422, "not a URL"},
		"plain http":     {"http://push.example.com/x", d.P256dh, d.Auth, 422, "https"},
		"bad key":        {d.Endpoint, "AAAA", d.Auth, 422, "P-256"},
		"short secret":   {d.Endpoint, d.P256dh, "AAAA", 422, "16 bytes"},
		"no keys at all": {d.Endpoint, "", "", 422, "P-256"},
	} {
		st, body := subscribe(t, b, c.endpoint, c.p256dh, c.auth, androidChrome)
		if st != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", name, st, body, c.status, c.says)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, b.URL()+"/settings/devices", strings.NewReader("{"))
	req.Header.Set("X-CSRF-Token", b.CSRFToken())
	if res := b.Do(req); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "no push subscription") {
		t.Errorf("broken JSON: %d %s", res.Status, res.Body)
	}
	if res := s.Client().Do(req); res.Status == http.StatusCreated {
		t.Error("a visitor subscribed a device")
	}
	if st, _ := subscribe(t, b, d.Endpoint, d.P256dh, d.Auth, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"); st != http.StatusCreated {
		t.Fatalf("subscribe: %d", st)
	}
	// The same browser again: still one device.
	if st, _ := subscribe(t, b, d.Endpoint, d.P256dh, d.Auth, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"); st != http.StatusCreated {
		t.Fatalf("subscribe again: %d", st)
	}
	page = b.Get("/settings")
	if n := page.Doc().Find(`[data-testid="device-row"]`).Length(); n != 1 || !strings.Contains(page.TestID("device-row"), "Firefox · Windows") {
		t.Fatalf("%d device rows: %q", n, page.TestID("device-row"))
	}
	// Renamed in Settings; a name it cannot take shows the page again
	// with the name as typed and why, and changes nothing.
	row := page.Doc().Find(`[data-testid="device-row"]`)
	if row.Find(`[data-testid="device-name"]`).AttrOr("value", "") != "Firefox · Windows" {
		t.Errorf("the rename field does not hold the name: %q", row.Find(`[data-testid="device-name"]`).AttrOr("value", ""))
	}
	rename := row.Find(`[data-testid="device-rename"] form`).AttrOr("action", "")
	long := strings.Repeat("x", 41)
	bad := b.PostForm(rename, map[string][]string{"name": {long}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.TestID("device-name-error"), "1 to 40") ||
		bad.Doc().Find(`[data-testid="device-name"]`).AttrOr("value", "") != long || bad.Doc().Find(`[data-testid="device-rename"][open]`).Length() != 1 {
		t.Errorf("a name too long: %d, error %q, field %q", bad.Status, bad.TestID("device-name-error"), bad.Doc().Find(`[data-testid="device-name"]`).AttrOr("value", ""))
	}
	if res := b.PostForm(rename, map[string][]string{"name": {"Work laptop"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("rename: %d", res.Status)
	}
	if page = b.Get("/settings"); !strings.Contains(page.TestID("device-row"), "Work laptop") || !strings.Contains(page.Body, "The device is called Work laptop now.") {
		t.Errorf("after renaming: row %q", page.TestID("device-row"))
	}
	if st, _ := subscribe(t, b, d.Endpoint, d.P256dh, d.Auth, androidChrome); st != http.StatusCreated {
		t.Fatalf("subscribe once more: %d", st)
	}
	if page = b.Get("/settings"); !strings.Contains(page.TestID("device-row"), "Work laptop") {
		t.Errorf("the browser subscribing again lost the name: %q", page.TestID("device-row"))
	}
	for i := 1; i < 10; i++ {
		o := ps.NewDevice(fmt.Sprint(i))
		if st, body := subscribe(t, b, o.Endpoint, o.P256dh, o.Auth, androidChrome); st != http.StatusCreated {
			t.Fatalf("device %d: %d %s", i, st, body)
		}
	}
	o := ps.NewDevice("eleventh")
	if st, body := subscribe(t, b, o.Endpoint, o.P256dh, o.Auth, androidChrome); st != http.StatusConflict || !strings.Contains(body, "remove one first") {
		t.Errorf("an eleventh device: %d %s", st, body)
	}
	// Another person cannot remove or test Pia's device.
	u, _ := s.Store.UserByName(context.Background(), "Pia")
	ds, _ := s.Store.PushDevices(context.Background(), u.ID)
	eve := s.Client().Register("Eve")
	for _, action := range []string{"remove", "test", "rename"} {
		if res := eve.PostForm(fmt.Sprintf("/settings/devices/%d/%s", ds[0].ID, action), map[string][]string{"name": {"Eve's"}}); res.Status != http.StatusNotFound {
			t.Errorf("Eve's %s of Pia's device: %d", action, res.Status)
		}
	}
	if res := b.PostForm(fmt.Sprintf("/settings/devices/%d/remove", ds[0].ID), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.Status)
	}
	if after, _ := s.Store.PushDevices(context.Background(), u.ID); len(after) != 9 {
		t.Errorf("%d devices after removing one of 10", len(after))
	}

	// Without PUSH_ALLOW_LOCAL a local endpoint is refused.
	strict := apptest.New(t, apptest.WithoutWorkers())
	sb := strict.Client().Register("Ria")
	if st, body := subscribe(t, sb, d.Endpoint, d.P256dh, d.Auth, androidChrome); st != 422 || !strings.Contains(body, "private network") {
		t.Errorf("a loopback endpoint on a strict server: %d %s", st, body)
	}
}

func TestManifestAndServiceWorker(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	c := s.Client()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/manifest.webmanifest", nil)
	req.Header.Set("Accept-Language", "it")
	res := c.Do(req)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/manifest+json") {
		t.Fatalf("manifest: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	var m struct {
		Name, ShortName, Lang, Display, StartURL, ThemeColor string
		Icons                                                []struct{ Src, Sizes, Type, Purpose string }
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(res.Body), &raw)
	m.Name, _ = raw["name"].(string)
	m.ShortName, _ = raw["short_name"].(string)
	m.Lang, _ = raw["lang"].(string)
	m.Display, _ = raw["display"].(string)
	m.StartURL, _ = raw["start_url"].(string)
	m.ThemeColor, _ = raw["theme_color"].(string)
	b, _ := json.Marshal(raw["icons"])
	_ = json.Unmarshal(b, &m.Icons)
	if m.ShortName != "No grazie" || !strings.Contains(m.Name, "No grazie") || m.Lang != "it" || m.Display != "standalone" || m.StartURL != "/" || m.ThemeColor == "" {
		t.Errorf("Italian manifest: %+v", m)
	}
	sizes := map[string]bool{}
	for _, ic := range m.Icons {
		r := c.Get(ic.Src)
		if r.Status != 200 || r.Header.Get("Content-Type") != ic.Type {
			t.Errorf("icon %s: %d %s", ic.Src, r.Status, r.Header.Get("Content-Type"))
			continue
		}
		if ic.Type == "image/png" {
			cfg, _, err := image.DecodeConfig(strings.NewReader(r.Body))
			if err != nil || fmt.Sprintf("%dx%d", cfg.Width, cfg.Height) != ic.Sizes {
				t.Errorf("icon %s is %dx%d, says %s (%v)", ic.Src, cfg.Width, cfg.Height, ic.Sizes, err)
			}
			sizes[ic.Sizes+" "+ic.Purpose] = true
		}
	}
	for _, want := range []string{"192x192 any", "512x512 any", "512x512 maskable"} {
		if !sizes[want] {
			t.Errorf("no %s icon", want)
		}
	}
	// The worker: served from the root, never cached stale, precaching the
	// hashed assets and the offline page and nothing else.
	sw := c.Get("/sw.js")
	if sw.Status != 200 || !strings.HasPrefix(sw.Header.Get("Content-Type"), "text/javascript") || sw.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("sw.js: %d %s %s", sw.Status, sw.Header.Get("Content-Type"), sw.Header.Get("Cache-Control"))
	}
	i := strings.Index(sw.Body, "var ASSETS = ")
	var assets []string
	if i < 0 || json.NewDecoder(strings.NewReader(sw.Body[i+len("var ASSETS = "):])).Decode(&assets) != nil || len(assets) < 5 {
		t.Fatalf("no asset list in sw.js")
	}
	for _, a := range assets {
		if !strings.HasPrefix(a, "/static/") {
			t.Errorf("the worker caches %s, not a hashed asset", a)
		}
	}
	// The offline page: in the request's language, nothing personal.
	member := s.Client().Register("Tia")
	off := member.Get("/offline")
	if off.Status != 200 || !strings.Contains(off.TestID("offline"), "Your games are safe") || strings.Contains(off.Body, "Tia") || strings.Contains(off.Body, member.CSRFToken()) ||
		strings.Contains(off.Body, `href="/login"`) || strings.Contains(off.Body, `action="/lang"`) {
		t.Errorf("offline page: %d %q", off.Status, off.TestID("offline"))
	}
	// Every page links the manifest.
	if home := c.Get("/"); home.Doc().Find(`link[rel="manifest"]`).AttrOr("href", "") != "/manifest.webmanifest" {
		t.Error("the home page does not link the manifest")
	}
}
