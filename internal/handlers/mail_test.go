package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
)

// mailSetup is a test server with a real SMTP server and three players with
// verified addresses in a correspondence game (one day a decision).
type mailSetup struct {
	s       *apptest.Server
	smtp    *apptest.SMTPServer
	players []*apptest.API
	game    int64
}

func newMailSetup(t *testing.T) *mailSetup {
	t.Helper()
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	m := &mailSetup{s: s, smtp: smtp}
	for _, name := range []string{"Mia", "Noa", "Ola"} {
		p := s.APIFor(name)
		if _, err := s.Store.VerifyEmail(context.Background(), p.ID, strings.ToLower(name)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		m.players = append(m.players, p)
	}
	m.game = m.newGame(t)
	m.send(t) // the sign-up confirmations go out first
	return m
}

func (m *mailSetup) newGame(t *testing.T) int64 {
	t.Helper()
	status, g := m.players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range m.players[1:] {
		if st, _ := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d", st)
		}
	}
	return id
}

// send runs the outbox once.
func (m *mailSetup) send(t *testing.T) int {
	t.Helper()
	n, err := m.s.App.Notify.RunOutbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mover returns the player to move in a game and their view.
func (m *mailSetup) mover(t *testing.T, game int64) (*apptest.API, map[string]any) {
	t.Helper()
	for _, p := range m.players {
		_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil)
		if v["your_turn"] == true {
			return p, v
		}
	}
	t.Fatal("nobody to move")
	return nil, nil
}

// pass makes the player to move pass, and returns the next player.
func (m *mailSetup) pass(t *testing.T, game int64) *apptest.API {
	t.Helper()
	p, v := m.mover(t, game)
	version := v["version"]
	if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/pass", game), map[string]any{"version": version}); st != http.StatusOK {
		t.Fatalf("pass: %d %v", st, body)
	}
	next, _ := m.mover(t, game)
	return next
}

func addr(p *apptest.API) string { return strings.ToLower(p.Name) + "@example.com" }

var linkRe = regexp.MustCompile(`https?://[^\s"<>]+`)

func TestYourTurnMail(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	if n := m.send(t); n != 0 {
		t.Fatalf("%d mails sent at once; the turn mail waits %s", n, games.YourTurnDelay)
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	got := m.smtp.To(addr(next))
	if len(got) != 1 {
		t.Fatalf("%d mails to %s, want 1", len(got), next.Name)
	}
	mail := got[0]
	if subj := mail.Header("Subject"); !strings.Contains(subj, "Your turn") {
		t.Errorf("subject %q", subj)
	}
	if lu := mail.Header("List-Unsubscribe"); !strings.Contains(lu, "/unsubscribe?") || mail.Header("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("unsubscribe headers: %q, %q", lu, mail.Header("List-Unsubscribe-Post"))
	}
	if !strings.HasPrefix(mail.Header("Message-Id"), "<outbox-") {
		t.Errorf("Message-ID %q", mail.Header("Message-Id"))
	}
	parts := mail.Parts()
	text, html := parts["text/plain"], parts["text/html"]
	if text == "" || html == "" {
		t.Fatalf("parts: %v", len(parts))
	}
	if !strings.Contains(text, fmt.Sprintf("/games/%d", m.game)) || !strings.Contains(html, fmt.Sprintf("/games/%d", m.game)) {
		t.Error("the mail has no link to the game")
	}
	// Nobody else got a mail (their addresses are verified: no
	// confirmation either), and no second one comes for this turn.
	if n := len(m.smtp.Messages()); n != 1 {
		t.Errorf("%d mails in all, want 1", n)
	}
	m.s.Clock.Advance(time.Hour)
	m.send(t)
	if len(m.smtp.To(addr(next))) != 1 {
		t.Error("a second mail for the same turn")
	}

	// The mail's one-click "No thanks!" link acts once.
	var passLink string
	for _, l := range linkRe.FindAllString(text, -1) {
		if strings.Contains(l, "/m?") && strings.Contains(l, "k=pass") {
			passLink = l
		}
	}
	if passLink == "" {
		t.Fatalf("no pass link in:\n%s", text)
	}
	u, _ := url.Parse(passLink)
	visitor := m.s.Client()
	page := visitor.Get(u.RequestURI())
	if page.Status != http.StatusOK || !page.Has("move-confirm") {
		t.Fatalf("move link page: %d", page.Status)
	}
	// The page names the card and its pot, as the player's table shows them.
	_, nv := next.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", m.game), nil)
	card, pot := int(nv["view"].(map[string]any)["active_card"].(float64)), int(nv["view"].(map[string]any)["pot"].(float64))
	potText := map[bool]string{true: "no tokens", false: fmt.Sprintf("%d token", pot)}[pot == 0]
	if got := page.TestID("move-link"); !strings.Contains(got, fmt.Sprintf("The active card is %d, with %s", card, potText)) || !strings.Contains(page.TestID("move-confirm"), fmt.Sprintf("No thanks! to %d", card)) {
		t.Errorf("the move page does not name card %d and its %s: %q / %q", card, potText, got, page.TestID("move-confirm"))
	}
	res := visitor.Do(postTo(m.s.URL + u.RequestURI()))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("the link's move: %d", res.Status)
	}
	again := visitor.Do(postTo(m.s.URL + u.RequestURI()))
	if again.Status != http.StatusConflict || !strings.Contains(again.TestID("flash"), "no longer acts") || !again.Has("board") {
		t.Errorf("the link used twice: %d %q", again.Status, again.TestID("flash"))
	}
	moves, _ := m.s.Store.Moves(context.Background(), m.game)
	if len(moves) != 2 {
		t.Errorf("%d moves, want 2 (one pass, one from the link)", len(moves))
	}
	// Mail links are opened on phones with no session on the site: the
	// reason shows in the very answer, not on a later page.
	if res := m.s.Client().Do(postTo(m.s.URL + u.RequestURI())); res.Status != http.StatusConflict || !strings.Contains(res.TestID("flash"), "no longer acts") || !res.Has("board") {
		t.Errorf("the link used again from a browser without a session: %d %q", res.Status, res.TestID("flash"))
	}
	tampered := strings.Replace(u.RequestURI(), "k=pass", "k=take", 1)
	if res := m.s.Client().Do(postTo(m.s.URL + tampered)); res.Status == http.StatusSeeOther || !strings.Contains(res.TestID("flash"), "not valid") {
		t.Errorf("a tampered link from a browser without a session: %d %q", res.Status, res.TestID("flash"))
	}
	m.s.Clock.Advance(30 * 24 * time.Hour)
	if res := m.s.Client().Do(postTo(m.s.URL + u.RequestURI())); res.Status == http.StatusSeeOther || !strings.Contains(res.TestID("flash"), "expired") {
		t.Errorf("an expired link from a browser without a session: %d %q", res.Status, res.TestID("flash"))
	}
}

func postTo(u string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, u, nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site") // as from a webmail page
	return req
}

func TestNoTurnMailWhileAtTheTable(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	// The player has the game open: its event stream is counted when the
	// instance writes who watches (every few seconds; here at once).
	c := m.s.Client()
	c.Login(next.Name, apptest.Password)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := c.Stream(ctx, fmt.Sprintf("/games/%d/events", m.game))
	stream.Next(t, "board")
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	if err := m.s.App.Watch.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	m.send(t)
	if n := len(m.smtp.To(addr(next))); n != 0 {
		t.Errorf("%d mails to a player who is at the table", n)
	}
}

func TestDigestOfSeveralGames(t *testing.T) {
	m := newMailSetup(t)
	second := m.newGame(t)
	// Make the same player the one to move in both games.
	target := m.players[1]
	for _, g := range []int64{m.game, second} {
		for range 6 {
			if p, _ := m.mover(t, g); p == target {
				break
			}
			m.pass(t, g)
		}
		if p, _ := m.mover(t, g); p != target {
			t.Fatalf("could not bring the turn to %s in game %d", target.Name, g)
		}
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	got := m.smtp.To(addr(target))
	var turn []apptest.Received
	for _, r := range got {
		if strings.Contains(r.Header("Subject"), "waiting") || strings.Contains(r.Header("Subject"), "Your turn") {
			turn = append(turn, r)
		}
	}
	if len(turn) != 1 || !strings.Contains(turn[0].Header("Subject"), "2 No Thanks! games are waiting") {
		t.Fatalf("turn mails: %d, first subject %q", len(turn), func() string {
			if len(turn) > 0 {
				return turn[0].Header("Subject")
			}
			return ""
		}())
	}
	text := turn[0].Parts()["text/plain"]
	if !strings.Contains(text, fmt.Sprintf("/games/%d", m.game)) || !strings.Contains(text, fmt.Sprintf("/games/%d", second)) {
		t.Error("the digest does not link both games")
	}
}

// A turn mail quotes what the other players wrote at the table since the
// player last looked (as text, the newest five, with how many in all); not
// their own words, not hidden messages; the digest counts them per game.
func TestTurnMailQuotesTheChatNotRead(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	var others []*apptest.API
	for _, p := range m.players {
		if p != next {
			others = append(others, p)
		}
	}
	chatPath := fmt.Sprintf("/api/v1/games/%d/chat", m.game)
	say := func(p *apptest.API, text string) int64 {
		t.Helper()
		st, body := p.Do(http.MethodPost, chatPath, map[string]any{"text": text})
		if st != http.StatusCreated {
			t.Fatalf("chat: %d %v", st, body)
		}
		return int64(body["id"].(float64))
	}
	say(next, "my own words")
	said := []string{"<b>think</b> twice", "one", "two", "three", "four", "five"}
	var ids []int64
	for i, text := range said {
		ids = append(ids, say(others[i%2], text))
		m.s.Clock.Advance(3 * time.Second) // under the rate limit
	}
	if _, err := m.s.Store.DB.Exec(`UPDATE chat_messages SET hidden_at = now() WHERE id = $1`, ids[5]); err != nil {
		t.Fatal(err)
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	got := m.smtp.To(addr(next))
	if len(got) != 1 {
		t.Fatalf("%d mails to %s", len(got), next.Name)
	}
	parts := got[0].Parts()
	text, html := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n"), parts["text/html"]
	// By hand: six messages by the others, one hidden: five unread, all
	// five shown, oldest first.
	wantText := "New in the players' chat since you last looked (5 messages, the last 5 below):\n" +
		"  " + others[0].Name + ": <b>think</b> twice\n" +
		"  " + others[1].Name + ": one\n" +
		"  " + others[0].Name + ": two\n" +
		"  " + others[1].Name + ": three\n" +
		"  " + others[0].Name + ": four\n"
	if !strings.Contains(text, wantText) {
		t.Errorf("the mail's text does not quote the chat as\n%s\nit reads:\n%s", wantText, text)
	}
	if strings.Contains(text, "my own words") || strings.Contains(text, "five") {
		t.Error("the mail quotes the player's own words or a hidden message")
	}
	if !strings.Contains(html, "&lt;b&gt;think&lt;/b&gt; twice") || strings.Contains(html, "<b>think</b>") {
		t.Error("the HTML part does not show the markup as text")
	}

	// Looking at the table reads them: a later digest counts only what
	// came after.
	m.s.Clock.Advance(12*time.Hour + time.Minute) // past the one-mail-per-game gap
	c := m.s.Client()
	c.Login(next.Name, apptest.Password)
	c.Get(fmt.Sprintf("/games/%d", m.game))
	say(others[0], "after you looked")
	second := m.newGame(t)
	m.pass(t, m.game) // the turn leaves the player, and comes back below
	for _, g := range []int64{m.game, second} {
		for range 3 {
			if p, _ := m.mover(t, g); p == next {
				break
			}
			m.pass(t, g)
		}
		if p, _ := m.mover(t, g); p != next {
			t.Fatalf("the turn did not come back to %s in game %d", next.Name, g)
		}
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	all := m.smtp.To(addr(next))
	digest := all[len(all)-1]
	body := digest.Parts()["text/plain"]
	if !strings.Contains(digest.Header("Subject"), "2 No Thanks! games are waiting") ||
		!strings.Contains(body, fmt.Sprintf("Game #%d against", m.game)) || !strings.Contains(body, "· 1 new message") ||
		strings.Count(body, "new message") != 1 {
		t.Errorf("the digest (%q) does not count the one message since:\n%s", digest.Header("Subject"), body)
	}
}

// Every mail a player can get reads in their own language, decided when it
// is composed: the turn mail (with the chat it quotes), the reminder, the
// time-ran-out notice, an invitation, the game-over mail and a password
// reset, in Spanish and in Italian, with no English sentence left over.
func TestEveryMailInTheReadersLanguage(t *testing.T) {
	m := newMailSetup(t)
	ctx := context.Background()
	es := m.pass(t, m.game)
	setLang := func(p *apptest.API, l i18n.Lang) {
		t.Helper()
		if err := m.s.Store.SetLanguage(ctx, p.ID, string(l)); err != nil {
			t.Fatal(err)
		}
	}
	setLang(es, i18n.Spanish)
	firstMail := map[*apptest.API]int{es: len(m.smtp.To(addr(es)))}
	var en *apptest.API
	for _, p := range m.players {
		if p != es {
			en = p
			break
		}
	}
	wisher := en
	wisher.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", m.game), map[string]any{"text": "suerte"})
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t) // the turn mail
	m.s.Clock.Advance(86400*4/5*time.Second - games.YourTurnDelay)
	m.send(t) // the reminder
	m.s.Clock.Advance(86400 / 5 * time.Second)
	if _, err := m.s.App.Games.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	// The server decided for the Spanish player; the turn goes on to
	// someone, who reads Italian from now on (unless the turn came back).
	it, _ := m.mover(t, m.game)
	if it == es {
		m.pass(t, m.game)
		it, _ = m.mover(t, m.game)
	}
	setLang(it, i18n.Italian)
	firstMail[it] = len(m.smtp.To(addr(it)))
	for _, p := range m.players {
		if p != es && p != it {
			en = p
		}
	}
	es.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", m.game), map[string]any{"text": "ciao"})
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t) // the time-ran-out notice, and the Italian player's turn mail

	// An invitation to a correspondence table, to both.
	_, g := en.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400})
	for _, p := range []*apptest.API{es, it} {
		if st, body := en.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", int64(g["id"].(float64))), map[string]any{"username": p.Name}); st != http.StatusOK {
			t.Fatalf("invite: %d %v", st, body)
		}
	}
	// The game played out by takes: the game-over mail.
	for range 200 {
		p, v := m.mover(t, m.game)
		if st, _ := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", m.game), map[string]any{"version": v["version"]}); st != http.StatusOK {
			t.Fatal("take failed")
		}
		if _, g := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", m.game), nil); g["status"] == "finished" {
			break
		}
	}
	for _, p := range []*apptest.API{es, it} {
		m.s.Client().PostForm("/forgot", url.Values{"email": {addr(p)}})
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)

	// By hand: the subjects each reader must have had, in their words.
	want := map[*apptest.API][]string{
		es: {"Tu turno", "Recordatorio", "acabó el tiempo", "invitación", "ha terminado", "contraseña"},
		it: {"tocca a te", "un invito", "è finita", "password"},
	}
	for p, l := range map[*apptest.API]i18n.Lang{es: i18n.Spanish, it: i18n.Italian} {
		mails := m.smtp.To(addr(p))[firstMail[p]:]
		var subjects []string
		for _, r := range mails {
			subject := r.Header("Subject")
			subjects = append(subjects, subject)
			parts := r.Parts()
			if left := englishIn(l, []string{subject}, subject+" "+parts["text/plain"]); len(left) > 0 {
				t.Errorf("%s mail %q: English left in the text: %q", l, subject, left)
			}
			if left := leftInEnglish(t, l, parts["text/html"]); len(left) > 0 {
				t.Errorf("%s mail %q: English left in the HTML: %q", l, subject, left)
			}
			quotes := map[string]string{"Tu turno": "Nuevo en el chat de los jugadores desde tu última visita:\r\n  " + wisher.Name + ": suerte",
				"Tocca a te": "Novità nella chat dei giocatori dalla tua ultima visita:\r\n  " + es.Name + ": ciao"}
			if it != wisher { // "suerte" is unread by the Italian player too
				quotes["Tocca a te"] = "Novità nella chat dei giocatori dalla tua ultima visita (2 messaggi, gli ultimi 2 qui sotto):\r\n  " +
					wisher.Name + ": suerte\r\n  " + es.Name + ": ciao"
			}
			for prefix, q := range quotes {
				if strings.HasPrefix(subject, prefix) && !strings.Contains(parts["text/plain"], q) {
					t.Errorf("%s turn mail does not quote the chat as %q:\n%s", l, q, parts["text/plain"])
				}
			}
			if !strings.Contains(parts["text/html"], `lang="`+string(l)+`"`) {
				t.Errorf("%s mail %q: the HTML part is not marked %s", l, subject, l)
			}
		}
		for _, w := range want[p] {
			found := false
			for _, subj := range subjects {
				found = found || strings.Contains(strings.ToLower(subj), strings.ToLower(w))
			}
			if !found {
				t.Errorf("no %s mail with %q in its subject among %q", l, w, subjects)
			}
		}
	}
}

func TestReminderAndTimeoutMails(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	before := len(m.smtp.To(addr(next)))
	// Four fifths of the day later, a reminder.
	m.s.Clock.Advance(86400*4/5*time.Second - games.YourTurnDelay)
	m.send(t)
	got := m.smtp.To(addr(next))
	if len(got) != before+1 || !strings.Contains(got[len(got)-1].Header("Subject"), "Reminder") {
		t.Fatalf("reminder: %d new mails", len(got)-before)
	}
	reminder := got[len(got)-1]
	if lu := reminder.Header("List-Unsubscribe"); !strings.Contains(lu, "k=reminder") || !strings.Contains(reminder.Parts()["text/plain"], "k=reminder") {
		t.Errorf("the reminder's unsubscribe link does not name reminders: %q", lu)
	}
	// The day runs out: the server decides, and says so.
	m.s.Clock.Advance(86400 / 5 * time.Second)
	if _, err := m.s.App.Games.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.send(t)
	got = m.smtp.To(addr(next))
	if !strings.Contains(got[len(got)-1].Header("Subject"), "time ran out") {
		t.Errorf("after the timeout: %q", got[len(got)-1].Header("Subject"))
	}
}

func TestGameOverMail(t *testing.T) {
	m := newMailSetup(t)
	for range 500 {
		p, v := m.mover(t, m.game)
		_ = p
		if v == nil {
			break
		}
		kind := "take"
		if st, _ := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", m.game, kind), map[string]any{"version": v["version"]}); st != http.StatusOK {
			t.Fatal("take failed")
		}
		_, g := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", m.game), nil)
		if g["status"] == "finished" {
			break
		}
	}
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	for _, p := range m.players {
		found := false
		for _, r := range m.smtp.To(addr(p)) {
			if strings.Contains(r.Header("Subject"), "is over") {
				found = true
				if !strings.Contains(r.Parts()["text/plain"], "1st:") {
					t.Errorf("game over mail without standings:\n%s", r.Parts()["text/plain"])
				}
			}
		}
		if !found {
			t.Errorf("%s got no game-over mail", p.Name)
		}
	}
}

func TestUnverifiedAddressGetsNoNudge(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	m := &mailSetup{s: s, smtp: smtp}
	for _, name := range []string{"Una", "Vic", "Wes"} {
		m.players = append(m.players, s.APIFor(name))
	}
	m.game = m.newGame(t)
	next := m.pass(t, m.game)
	s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	for _, r := range smtp.To(addr(next)) {
		if !strings.Contains(r.Header("Subject"), "Confirm") {
			t.Errorf("an unverified address got %q", r.Header("Subject"))
		}
	}
}

func TestOutboxSurvivesAWorkerDyingBetweenClaimAndSend(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	now := m.s.Clock.Now()
	// A worker claims the due mail and dies before sending.
	claimed, err := m.s.Store.ClaimMails(context.Background(), now, now.Add(2*time.Minute), 10)
	if err != nil || len(claimed) == 0 {
		t.Fatalf("claim: %v, %d rows", err, len(claimed))
	}
	if n := m.send(t); n != 0 {
		t.Fatalf("another worker sent %d mails the first one still holds", n)
	}
	m.s.Clock.Advance(2*time.Minute + time.Second) // the claim runs out
	if n := m.send(t); n != 1 {
		t.Fatalf("after the claim ran out: %d mails sent, want 1", n)
	}
	m.s.Clock.Advance(time.Hour)
	m.send(t)
	turn := 0
	for _, r := range m.smtp.To(addr(next)) {
		if strings.Contains(r.Header("Subject"), "Your turn") {
			turn++
		}
	}
	if turn != 1 {
		t.Errorf("%d turn mails delivered, want exactly 1", turn)
	}
}

func TestOutboxRetriesWithBackoff(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	m.smtp.FailNext(2)
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	if n := m.send(t); n != 0 {
		t.Fatal("a failed delivery counted as sent")
	}
	m.s.Clock.Advance(61 * time.Second) // first retry after a minute: fails again
	m.send(t)
	m.s.Clock.Advance(2*time.Minute + time.Second) // second retry after two
	if n := m.send(t); n != 1 {
		t.Fatalf("third try: %d sent", n)
	}
	mails, _ := m.s.Store.MailsTo(context.Background(), next.ID)
	for _, row := range mails {
		if row.Kind == "your_turn" && (row.Status != "sent" || row.Attempts != 3) {
			t.Errorf("turn mail row: %s after %d attempts, want sent after 3", row.Status, row.Attempts)
		}
	}
}

func TestEmailVerificationAndUnsubscribe(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	c := s.Client().Register("Xia")
	if _, err := s.App.Notify.RunOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := smtp.To("xia@example.com")
	if len(got) != 1 || !strings.Contains(got[0].Header("Subject"), "Confirm") {
		t.Fatalf("confirmation mails: %d", len(got))
	}
	if got[0].Header("List-Unsubscribe") != "" {
		t.Error("a confirmation mail offers to unsubscribe")
	}
	var link string
	for _, l := range linkRe.FindAllString(got[0].Parts()["text/plain"], -1) {
		if strings.Contains(l, "/verify-email?") {
			link = l
		}
	}
	u, _ := url.Parse(link)
	if !c.Get("/settings").Has("unverified") {
		t.Error("settings do not say the address is unconfirmed")
	}
	res := c.Get(u.RequestURI())
	if res.Status != http.StatusSeeOther {
		t.Fatalf("verify link: %d", res.Status)
	}
	if c.Get("/settings").Has("unverified") {
		t.Error("still unconfirmed after the link")
	}
	if res := c.Get(strings.Replace(u.RequestURI(), "u=", "u=9", 1)); res.Status != http.StatusNotFound {
		t.Errorf("a tampered verify link: %d", res.Status)
	}
	s.Clock.Advance(73 * time.Hour)
	if res := c.Get(u.RequestURI()); res.Status != http.StatusConflict {
		t.Errorf("an expired verify link: %d", res.Status)
	}

}

func TestPasswordResetByMail(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	s.Client().Register("Yan")
	c := s.Client()
	for _, email := range []string{"yan@example.com", "nobody@example.com"} {
		res := c.PostForm("/forgot", url.Values{"email": {email}})
		if res.Status != http.StatusOK || !res.Has("reset-sent") {
			t.Fatalf("forgot %s: %d", email, res.Status)
		}
	}
	s.App.Notify.RunOutbox(context.Background())
	var link string
	for _, r := range smtp.To("yan@example.com") {
		for _, l := range linkRe.FindAllString(r.Parts()["text/plain"], -1) {
			if strings.Contains(l, "/reset?") {
				link = l
			}
		}
	}
	if link == "" {
		t.Fatal("no reset mail")
	}
	if n := len(smtp.To("nobody@example.com")); n != 0 {
		t.Error("a reset mail went to an address with no account")
	}
	// Asking again at once sends nothing more (no flooding an inbox).
	c.PostForm("/forgot", url.Values{"email": {"yan@example.com"}})
	s.App.Notify.RunOutbox(context.Background())
	if n := len(smtp.To("yan@example.com")); n != 2 { // confirmation + one reset
		t.Errorf("%d mails to yan after two reset requests, want 2", n)
	}
	u, _ := url.Parse(link)
	if res := c.Get(u.RequestURI()); res.Status != http.StatusOK || !res.Has("reset-form") {
		t.Fatalf("reset page: %d", res.Status)
	}
	if res := c.PostForm(u.RequestURI(), url.Values{"new": {"short"}, "confirm": {"short"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a short new password: %d", res.Status)
	}
	if res := c.PostForm(u.RequestURI(), url.Values{"new": {"brand new password"}, "confirm": {"brand new password"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("reset: %d", res.Status)
	}
	if res := s.Client().Login("Yan", "brand new password"); res.Status != http.StatusSeeOther {
		t.Error("the new password does not log in")
	}
	if res := c.PostForm(u.RequestURI(), url.Values{"new": {"another password"}, "confirm": {"another password"}}); res.Status != http.StatusConflict {
		t.Errorf("the link used twice: %d", res.Status)
	}
}

func TestUnsubscribeOneClick(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	got := m.smtp.To(addr(next))
	lu := strings.Trim(got[len(got)-1].Header("List-Unsubscribe"), "<>")
	u, _ := url.Parse(lu)
	res := m.s.Client().Do(postTo(m.s.URL + u.RequestURI()))
	if res.Status != http.StatusOK || !res.Has("unsubscribed") {
		t.Fatalf("one-click unsubscribe: %d", res.Status)
	}
	rec, _ := m.s.Store.Recipient(context.Background(), next.ID)
	if rec.YourTurn {
		t.Error("turn mails still on after unsubscribing")
	}
	if res := m.s.Client().Do(postTo(m.s.URL + strings.Replace(u.RequestURI(), "k=your_turn", "k=reminder", 1))); res.Status != http.StatusNotFound {
		t.Errorf("a tampered unsubscribe link: %d", res.Status)
	}
}

// An invitation mail can be turned off like the other notifications: its
// one-click link turns off invitations only, the settings page shows it,
// and the next invitation to a correspondence table is not mailed (it still
// waits on the start page).
func TestInvitationMailsFollowTheSetting(t *testing.T) {
	m := newMailSetup(t)
	host, guest := m.players[0], m.players[1]
	invite := func() int64 {
		t.Helper()
		_, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400, "invite": []string{guest.Name}})
		if g["id"] == nil {
			t.Fatalf("create with an invitation: %v", g)
		}
		m.send(t)
		return int64(g["id"].(float64))
	}
	before := len(m.smtp.To(addr(guest)))
	invite()
	got := m.smtp.To(addr(guest))
	if len(got) != before+1 || !strings.Contains(got[len(got)-1].Header("Subject"), "invitation") {
		t.Fatalf("the invitation mail: %d new", len(got)-before)
	}
	if text := got[len(got)-1].Parts()["text/plain"]; !strings.Contains(text, host.Name+" invites you to their correspondence table") {
		t.Errorf("the invitation mail does not name who invites:\n%s", text)
	}
	lu := strings.Trim(got[len(got)-1].Header("List-Unsubscribe"), "<>")
	if !strings.Contains(lu, "k=invite") {
		t.Fatalf("the invitation mail's unsubscribe link: %q", lu)
	}
	u, _ := url.Parse(lu)
	if res := m.s.Client().Do(postTo(m.s.URL + u.RequestURI())); res.Status != http.StatusOK || !res.Has("unsubscribed") {
		t.Fatalf("one-click unsubscribe: %d", res.Status)
	}
	rec, _ := m.s.Store.Recipient(context.Background(), guest.ID)
	if rec.Invite || !rec.YourTurn {
		t.Errorf("after unsubscribing from invitations: invite %v, your turn %v", rec.Invite, rec.YourTurn)
	}
	c := m.s.Client()
	c.Login(guest.Name, apptest.Password)
	if _, checked := c.Get("/settings").Doc().Find(`[data-testid="input-mail_invite"]`).Attr("checked"); checked {
		t.Error("the settings page still ticks invitation mails")
	}
	second := invite()
	if n := len(m.smtp.To(addr(guest))); n != before+1 {
		t.Errorf("%d mails after invitations were turned off, want %d", n, before+1)
	}
	if home := c.Get("/"); !strings.Contains(home.TestID("invitations"), fmt.Sprintf("game #%d", second)) {
		t.Errorf("the unmailed invitation is not on the start page: %q", home.TestID("invitations"))
	}
}

// TestInvitationMailLeadsToTheTable: the invitation mail's link opens the
// table it invites to (a private one with its code), where the invitee
// finds the invitation and accepts it; the start page links there too.
func TestInvitationMailLeadsToTheTable(t *testing.T) {
	m := newMailSetup(t)
	host, guest := m.players[0], m.players[1]
	st, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400, "private": true, "invite": []string{guest.Name}})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, g)
	}
	id := int64(g["id"].(float64))
	game, err := m.s.Store.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	m.send(t)
	mails := m.smtp.To(addr(guest))
	text := mails[len(mails)-1].Parts()["text/plain"]
	want := fmt.Sprintf("/games/%d?code=%s", id, game.InviteCode)
	if !slices.ContainsFunc(linkRe.FindAllString(text, -1), func(l string) bool { return strings.HasSuffix(l, want) }) {
		t.Fatalf("the invitation mail does not link to the table %s:\n%s", want, text)
	}
	c := m.s.Client()
	c.Login(guest.Name, apptest.Password)
	if href := c.Get("/").Doc().Find(`[data-testid="invitation"] a`).AttrOr("href", ""); href != want {
		t.Errorf("the start page links the invitation to %q, want %q", href, want)
	}
	table := c.Get(want)
	if table.Status != http.StatusOK || !strings.Contains(table.TestID("invitation-here"), host.Name+" invites you") {
		t.Fatalf("the table from the mail: %d, invitation %q", table.Status, table.TestID("invitation-here"))
	}
	accept := table.Doc().Find(`[data-testid="invitation-here"] form`).First().AttrOr("action", "")
	res := c.Follow(c.PostForm(accept, nil))
	if res.Status != http.StatusOK || res.Has("invitation-here") {
		t.Fatalf("accepting at the table: %d, invitation still shown %v", res.Status, res.Has("invitation-here"))
	}
	seats, _ := m.s.Store.Seats(context.Background(), id)
	if len(seats) != 2 || seats[1].UserID == nil || *seats[1].UserID != guest.ID {
		t.Errorf("after accepting, the seats are %+v", seats)
	}
	// Someone else at the table's page sees no invitation.
	other := m.s.Client()
	other.Login(m.players[2].Name, apptest.Password)
	if other.Get(want).Has("invitation-here") {
		t.Error("a member who is not invited sees an invitation at the table")
	}
}

func TestVacation(t *testing.T) {
	m := newMailSetup(t)
	next := m.pass(t, m.game)
	ctx := context.Background()
	g, _ := m.s.Store.Game(ctx, m.game)
	due := *g.DueAt
	c := m.s.Client()
	c.Login(next.Name, apptest.Password)
	if res := c.PostForm("/settings/vacation", url.Values{"days": {"15"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("15 days: %d, want 422", res.Status)
	}
	if res := c.PostForm("/settings/vacation", url.Values{"days": {"3"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("start vacation: %d", res.Status)
	}
	g, _ = m.s.Store.Game(ctx, m.game)
	if shift := g.DueAt.Sub(due); shift < 72*time.Hour-time.Minute || shift > 72*time.Hour+time.Minute {
		t.Errorf("deadline moved by %s, want 3 days", shift)
	}
	settings := c.Get("/settings")
	if settings.TestID("vacation-left") != "11" || !settings.Has("on-vacation") {
		t.Errorf("balance %q", settings.TestID("vacation-left"))
	}
	other := m.s.Client()
	other.Login(m.players[0].Name, apptest.Password)
	if !strings.Contains(other.Get(fmt.Sprintf("/games/%d", m.game)).Body, "on vacation until") {
		t.Error("opponents do not see the vacation")
	}
	// No turn mail while away.
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	m.send(t)
	for _, r := range m.smtp.To(addr(next)) {
		if strings.Contains(r.Header("Subject"), "Your turn") {
			t.Error("a turn mail during the vacation")
		}
	}
	// Back a little over a day later: the one whole day not started comes
	// back (1 d 23 h 58 m were left), and the clock runs again.
	m.s.Clock.Advance(24 * time.Hour)
	if res := c.PostForm("/settings/vacation/end", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("end vacation: %d", res.Status)
	}
	if got := c.Get("/settings").TestID("vacation-left"); got != "12" {
		t.Errorf("balance after ending early: %q, want 12", got)
	}
	g, _ = m.s.Store.Game(ctx, m.game)
	if shift := g.DueAt.Sub(due); shift < 24*time.Hour-time.Hour || shift > 24*time.Hour+time.Hour {
		t.Errorf("after a one-day vacation the deadline moved by %s in all, want about 1 day", shift)
	}
}

func TestNotificationSettings(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	c := s.Client().Register("Zed")
	res := c.PostForm("/settings/notifications", url.Values{"time_zone": {"Mars/Olympus"}, "digest_hour": {"7"}})
	if res.Status != http.StatusUnprocessableEntity || res.TestID("error-time_zone") == "" {
		t.Errorf("a bad time zone: %d", res.Status)
	}
	res = c.PostForm("/settings/notifications", url.Values{"time_zone": {"Europe/Rome"}, "digest_hour": {"7"}, "turn_digest": {"true"}, "mail_game_over": {"true"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", res.Status)
	}
	u, _ := s.Store.UserByName(context.Background(), "Zed")
	rec, _ := s.Store.Recipient(context.Background(), u.ID)
	if rec.TimeZone != "Europe/Rome" || rec.DigestHour != 7 || !rec.TurnDigest || rec.YourTurn || !rec.GameOver {
		t.Errorf("stored settings: %+v", rec.MailSettings)
	}
}

// mailLink returns the first link in the newest mail to an address whose
// path contains part ("" when there is none).
func mailLink(smtp *apptest.SMTPServer, to, part string) string {
	got := smtp.To(to)
	if len(got) == 0 {
		return ""
	}
	for _, l := range linkRe.FindAllString(got[len(got)-1].Parts()["text/plain"], -1) {
		if strings.Contains(l, part) {
			u, _ := url.Parse(l)
			return u.RequestURI()
		}
	}
	return ""
}

// A new address is used only once its owner confirms it from the link
// mailed to it; until then the confirmed address gets everything, so a
// typo cannot lock anyone out (docs/correspondence.md).
func TestEmailChangeWaitsForConfirmation(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	c := s.Client().Register("Zed")
	s.App.Notify.RunOutbox(context.Background())
	if res := c.Get(mailLink(smtp, "zed@example.com", "/verify-email?")); res.Status != http.StatusSeeOther {
		t.Fatalf("first confirmation: %d", res.Status)
	}

	// A typo in the new address.
	res := c.PostForm("/settings/email", url.Values{"email": {"zde@exmaple.com"}, "password": {apptest.Password}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("change: %d", res.Status)
	}
	page := c.Follow(res)
	if got := page.TestID("flash"); !strings.Contains(got, "zde@exmaple.com") || !strings.Contains(got, "stays zed@example.com") {
		t.Errorf("flash after the change = %q", got)
	}
	if got := page.TestID("current-email"); got != "zed@example.com" {
		t.Errorf("address in use before confirmation = %q, want the old one", got)
	}
	if got := page.TestID("pending-email"); got != "zde@exmaple.com" {
		t.Errorf("pending address shown = %q", got)
	}
	s.App.Notify.RunOutbox(context.Background())
	typoLink := mailLink(smtp, "zde@exmaple.com", "/verify-email?")
	if typoLink == "" {
		t.Fatal("no confirmation link went to the new address")
	}
	if len(smtp.To("zed@example.com")) != 1 {
		t.Errorf("%d mails to the old address, want only its first confirmation", len(smtp.To("zed@example.com")))
	}

	// Password reset and log-in still use the confirmed address.
	s.Client().PostForm("/forgot", url.Values{"email": {"zde@exmaple.com"}})
	s.Client().PostForm("/forgot", url.Values{"email": {"zed@example.com"}})
	s.App.Notify.RunOutbox(context.Background())
	if mailLink(smtp, "zed@example.com", "/reset?") == "" {
		t.Error("no reset link went to the confirmed address")
	}
	if n := len(smtp.To("zde@exmaple.com")); n != 1 {
		t.Errorf("%d mails to the unconfirmed address, want only its confirmation", n)
	}
	if res := s.Client().Login("zed@example.com", apptest.Password); res.Status != http.StatusSeeOther {
		t.Errorf("log-in with the confirmed address: %d", res.Status)
	}

	// Asking again at once sends nothing; cancelling kills the link.
	if res := c.PostForm("/settings/email/resend", nil); res.Status != http.StatusConflict {
		t.Errorf("a second link at once: %d", res.Status)
	}
	s.Clock.Advance(6 * time.Minute)
	if res := c.PostForm("/settings/email/resend", nil); res.Status != http.StatusSeeOther {
		t.Errorf("resend after 6 minutes: %d", res.Status)
	}
	s.App.Notify.RunOutbox(context.Background())
	if n := len(smtp.To("zde@exmaple.com")); n != 2 {
		t.Errorf("%d mails to the new address after a resend, want 2", n)
	}
	res = c.PostForm("/settings/email/cancel", nil)
	if c.Follow(res).Has("pending-email") {
		t.Error("the pending address is still shown after cancelling")
	}
	if res := c.Get(typoLink); res.Status != http.StatusConflict {
		t.Errorf("the link of a cancelled change: %d", res.Status)
	}
	if got := c.Get("/settings").TestID("current-email"); got != "zed@example.com" {
		t.Errorf("address after cancelling = %q", got)
	}

	// The right address, confirmed from its link, replaces the old one.
	c.PostForm("/settings/email", url.Values{"email": {"zed@new.example.com"}, "password": {apptest.Password}})
	s.App.Notify.RunOutbox(context.Background())
	res = c.Get(mailLink(smtp, "zed@new.example.com", "/verify-email?"))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("confirming the new address: %d", res.Status)
	}
	page = c.Follow(res)
	if got := page.TestID("current-email"); got != "zed@new.example.com" || page.Has("pending-email") {
		t.Errorf("after confirming: address %q, pending shown %v", got, page.Has("pending-email"))
	}
	s.Clock.Advance(11 * time.Minute)
	s.Client().PostForm("/forgot", url.Values{"email": {"zed@new.example.com"}})
	s.App.Notify.RunOutbox(context.Background())
	if mailLink(smtp, "zed@new.example.com", "/reset?") == "" {
		t.Error("no reset link went to the new address once confirmed")
	}

	// A pending address someone else registers first cannot be taken over.
	c.PostForm("/settings/email", url.Values{"email": {"taken@example.com"}, "password": {apptest.Password}})
	s.App.Notify.RunOutbox(context.Background())
	link := mailLink(smtp, "taken@example.com", "/verify-email?")
	s.Client().Register("Taken") // registers taken@example.com
	if res := c.Get(link); res.Status != http.StatusConflict {
		t.Errorf("confirming an address another account took since: %d", res.Status)
	}
	if got := c.Get("/settings").TestID("current-email"); got != "zed@new.example.com" {
		t.Errorf("address after the refused confirmation = %q", got)
	}
}
