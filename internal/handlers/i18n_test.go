package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
	"nothanks/internal/i18n"
)

// englishChunks are the pieces of English that must not be left on a page
// in another language: every catalogue message whose translation differs
// from it, cut at its placeholders into pieces of three words or more, and
// whole messages that stand alone in an element.
func englishChunks(l i18n.Lang) (pieces []string, whole map[string]bool) {
	holes := regexp.MustCompile(`\{\{\.\w+\}\}|%(\[\d+\])?[-+# 0-9.]*[a-zA-Z]`)
	whole = map[string]bool{}
	for id, en := range i18n.Messages(i18n.English) {
		tr := i18n.Messages(l)[id]
		if tr == nil || tr.Other == en.Other {
			continue
		}
		for _, form := range []string{en.Other, en.One} {
			for _, p := range holes.Split(form, -1) {
				p = strings.TrimSpace(strings.Trim(p, " .,:;()“”"))
				if len(strings.Fields(p)) >= 3 && !strings.Contains(tr.Other, p) {
					pieces = append(pieces, p)
				}
			}
		}
		if !holes.MatchString(en.Other) && len(en.Other) > 1 {
			whole[en.Other] = true
		}
	}
	return pieces, whole
}

// leftInEnglish lists English found in a page: text outside the documents
// marked lang="en", and the words people read in attributes.
func leftInEnglish(t *testing.T, l i18n.Lang, html string) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	doc.Find(`body [lang="en"], script, style`).Remove()
	var texts []string
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range []string{"aria-label", "title", "placeholder", "alt", "data-confirm", "hx-confirm", "label"} {
			if v, ok := s.Attr(a); ok {
				texts = append(texts, v)
			}
		}
		s.Contents().Each(func(_ int, n *goquery.Selection) {
			if goquery.NodeName(n) == "#text" {
				texts = append(texts, strings.TrimSpace(n.Text()))
			}
		})
	})
	return englishIn(l, texts, doc.Text())
}

func englishIn(l i18n.Lang, texts []string, all string) []string {
	pieces, whole := englishChunks(l)
	var found []string
	for _, t := range texts {
		if whole[t] {
			found = append(found, t)
		}
	}
	all = strings.Join(strings.Fields(all), " ")
	for _, p := range pieces {
		if strings.Contains(all, p) {
			found = append(found, p)
		}
	}
	if strings.Contains(all, "{{") {
		found = append(found, "a placeholder shown raw")
	}
	return found
}

// A tour of the site in Spanish and in Italian, as a visitor, as a player
// who registers in that language, and through the mail: no English
// sentence is left over and no message is missing from a catalogue.
func TestTheSiteSpeaksSpanishAndItalian(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithSMTP(smtp))
	ann, bob := s.APIFor("Ann"), s.APIFor("Bob")
	finished, _ := finishWithBot(t, s, ann, bob)
	_, said := ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", finished), map[string]any{"text": "gg"})
	msg := int64(said["id"].(float64))
	bob.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", finished), map[string]any{"text": "well played"})
	_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 2, "pace": "correspondence", "turn_seconds": 86400})
	playing := int64(g["id"].(float64))
	ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", playing), map[string]any{"level": "heuristic"})
	bob.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", playing), nil)
	ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", playing), map[string]any{"text": "your move"})
	// An arena tomorrow that Ann and Bob joined.
	for _, p := range []*apptest.API{ann, bob} {
		if _, err := s.Store.VerifyEmail(context.Background(), p.ID, strings.ToLower(p.Name)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	upcoming := createEvent(t, s, ann, map[string]any{"kind": "arena", "name": "Torneo Ann", "table_size": 3, "minutes": 60,
		"starts_at": s.Clock.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)})
	for _, p := range []*apptest.API{ann, bob} {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", upcoming), nil); st != http.StatusOK {
			t.Fatalf("%s joins the arena: %d %v", p.Name, st, res)
		}
	}
	i18n.Missing()
	// The check itself finds English where there is some: the English
	// pages are full of it.
	for _, path := range []string{"/", "/rules", fmt.Sprintf("/games/%d", playing), fmt.Sprintf("/games/%d", finished)} {
		if left := leftInEnglish(t, i18n.Spanish, s.Client().Get(path).Body); len(left) < 3 {
			t.Fatalf("the check finds only %q of English on the English page %s", left, path)
		}
	}

	for _, l := range []i18n.Lang{i18n.Spanish, i18n.Italian} {
		t.Run(string(l), func(t *testing.T) {
			c := s.Client()
			check := func(what string, res *apptest.Response) {
				t.Helper()
				if !strings.Contains(res.Body, `<html lang="`+string(l)+`"`) && strings.Contains(res.Body, "<html") {
					t.Errorf("%s: <html lang> is not %s", what, l)
				}
				if left := leftInEnglish(t, l, res.Body); len(left) > 0 {
					t.Errorf("%s (%d) still in English: %q", what, res.Status, left)
				}
			}
			// The footer's switch, as a visitor.
			res := c.PostForm("/lang", url.Values{"lang": {string(l)}, "next": {"/rules"}})
			if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/rules" {
				t.Fatalf("switch: %d %s", res.Status, res.Header.Get("Location"))
			}
			for _, path := range []string{"/", "/games", "/watch", "/ladder", "/rules", "/login", "/register", "/forgot",
				"/u/Ann", fmt.Sprintf("/games/%d", finished), fmt.Sprintf("/games/%d/replay", finished),
				fmt.Sprintf("/games/%d/replay?step=3", finished), fmt.Sprintf("/games/%d", playing),
				fmt.Sprintf("/games/%d/board", playing), "/docs/api", "/no/such/page", "/games/999999",
				"/tournaments", fmt.Sprintf("/tournaments/%d", upcoming), "/tournaments/999999", "/tv"} {
				check(path, c.Get(path))
			}
			// Bad input gets its message in the language too.
			check("bad registration", c.PostForm("/register", url.Values{"username": {"x"}, "email": {"nope"}, "password": {"short"}, "confirm": {"other"}}))
			check("bad log-in", c.PostForm("/login", url.Values{"login": {"nobody"}, "password": {"wrong password"}}))
			// A player who registers in the language.
			name := "Lang" + string(l)
			res = c.PostForm("/register", url.Values{"username": {name}, "email": {strings.ToLower(name) + "@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}})
			if res.Status != http.StatusSeeOther {
				t.Fatalf("register: %d", res.Status)
			}
			check("welcome", c.Follow(res))
			for _, path := range []string{"/settings", "/my/games", "/games/new", "/ranked", "/u/" + name, "/following", "/u/Ann", fmt.Sprintf("/games/%d/replay", finished),
				"/tournaments", "/tournaments/new", fmt.Sprintf("/tournaments/%d", upcoming)} {
				check(path, c.Get(path))
			}
			// Bob's lists tell him of Ann's message he has not read.
			bc := loggedIn(t, s, bob)
			bc.PostForm("/lang", url.Values{"lang": {string(l)}, "next": {"/"}})
			for _, path := range []string{"/", "/my/games"} {
				res := bc.Get(path)
				if !res.Has("unread-chat") {
					t.Errorf("%s: Bob's unread message is not shown", path)
				}
				check("Bob's "+path, res)
			}
			// A moderator's pages, a report with the moderator's actions, a
			// report refused and an action on nobody.
			if err := s.App.Moderation.Grant(context.Background(), name, true); err != nil {
				t.Fatal(err)
			}
			c.PostForm(fmt.Sprintf("/chat/%d/report", msg), url.Values{"reason": {"rude"}})
			for _, path := range []string{"/admin", "/admin/log", fmt.Sprintf("/chat/%d/report", msg)} {
				res := c.Get(path)
				if path == "/admin" && !res.Has("report-context") {
					t.Error("the moderators' page shows no report with its conversation")
				}
				check(path, res)
			}
			check("long report", c.PostForm(fmt.Sprintf("/chat/%d/report", msg), url.Values{"reason": {strings.Repeat("x", 201)}}))
			check("act on nobody", c.PostForm("/admin/users", url.Values{"name": {"nobody-here"}, "action": {"disable"}}))
			check("bad follow", c.PostForm("/following", url.Values{"name": {"nobody-here"}}))
			check("bad deletion", c.PostForm("/settings/delete", url.Values{"password": {"wrong password"}}))
			check("bad new game", c.PostForm("/games", url.Values{"seats": {"9"}, "rounds": {"0"}, "pace": {"live"}, "turn_seconds": {"1"}, "invite": {"nobody-here"}}))
			check("too many to invite", c.PostForm("/games", url.Values{"seats": {"3"}, "rounds": {"2"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "invite": {"Ann, Bob, " + name}}))
			res = c.PostForm("/games", url.Values{"seats": {"4"}, "rounds": {"2"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "invite": {"Ann"}})
			check("lobby", c.Follow(res))
			lobby := res.Header.Get("Location")
			for _, name := range []string{"nobody-here", name, ""} {
				check("bad invitation of "+name, c.PostForm(lobby+"/invites", url.Values{"username": {name}}))
			}
			// The sign-up mail, composed in the language the account was made in.
			if _, err := s.App.Notify.RunOutbox(context.Background()); err != nil {
				t.Fatal(err)
			}
			mails := smtp.To(strings.ToLower(name) + "@example.com")
			if len(mails) == 0 {
				t.Fatal("no confirmation mail")
			}
			subject, text, html := readMail(t, mails[len(mails)-1].Raw)
			if left := englishIn(l, []string{subject}, subject+" "+text); len(left) > 0 {
				t.Errorf("mail subject and text in English: %q", left)
			}
			if left := leftInEnglish(t, l, html); len(left) > 0 {
				t.Errorf("mail HTML in English: %q", left)
			}
			tourTournaments(t, s, smtp, l, c, name, upcoming, check)
			if missing := i18n.Missing(); len(missing) > 0 {
				t.Errorf("messages missing from the catalogues: %q", missing)
			}
		})
	}
}

// tourTournaments is the tournaments' part of the tour, for the
// moderator who registered in l (logged in with c): the tournament pages
// as a moderator, a bad form, the schedules, joining twice, a running
// correspondence Swiss event of three players who registered in l (its
// page with the featured table, the standings after round 1, its game,
// the TV) and its "it starts" and "your table is ready" mails.
func tourTournaments(t *testing.T, s *apptest.Server, smtp *apptest.SMTPServer, l i18n.Lang, c *apptest.Client, name string, upcoming int64,
	check func(string, *apptest.Response)) {
	t.Helper()
	ctx := context.Background()
	for _, path := range []string{"/tournaments/new", fmt.Sprintf("/tournaments/%d", upcoming), fmt.Sprintf("/tournaments/%d/edit", upcoming), "/admin/schedules"} {
		check(path, c.Get(path))
	}
	past := s.Clock.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04")
	res := c.PostForm("/tournaments", url.Values{"kind": {"swiss"}, "name": {"x"}, "rounds": {"12"}, "table_size": {"3"}, "game_rounds": {"1"},
		"variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "max_players": {"100"}, "starts_local": {past}, "time_zone": {"UTC"}})
	if res.Status != http.StatusUnprocessableEntity || !res.Has("error-name") || !res.Has("error-rounds") || !res.Has("error-starts_at") {
		t.Errorf("bad tournament form: %d, errors name %q, rounds %q, start %q", res.Status, res.TestID("error-name"), res.TestID("error-rounds"), res.TestID("error-starts_at"))
	}
	check("bad tournament form", res)
	weekly := s.Clock.Now().Add(48 * time.Hour).UTC().Format("2006-01-02T15:04")
	res = c.PostForm("/admin/schedules", url.Values{"kind": {"arena"}, "name": {"Semanal " + string(l)}, "table_size": {"4"}, "minutes": {"30"},
		"game_rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"30"}, "max_players": {"500"}, "rated": {"true"},
		"every_hours": {"168"}, "time_zone": {"UTC"}, "starts_local": {weekly}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("schedule: %d %s", res.Status, res.TestID("form-error"))
	}
	check("scheduled", c.Follow(res))

	// Three players who registered in the language, their addresses
	// confirmed: the moderator and two more.
	var ps []*apptest.API
	for _, n := range []string{name, name + "B", name + "C"} {
		if n != name {
			pc := s.Client()
			pc.PostForm("/lang", url.Values{"lang": {string(l)}, "next": {"/"}})
			pc.Register(n)
		}
		u, err := s.Store.UserByName(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Store.VerifyEmail(ctx, u.ID, strings.ToLower(n)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		token, err := s.App.Accounts.CreateAPIToken(ctx, u.ID, "tests")
		if err != nil {
			t.Fatal(err)
		}
		p := apptest.NewAPI(s, token)
		p.Name, p.ID = n, u.ID
		ps = append(ps, p)
	}
	event := "Torneo " + name
	id := createEvent(t, s, ps[0], map[string]any{"kind": "swiss", "name": event, "table_size": 3, "rounds": 3,
		"pace": "correspondence", "turn_seconds": 12 * 3600})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	// Joining again through the page: the refusal comes after the redirect.
	res = c.PostForm(fmt.Sprintf("/tournaments/%d/join", id), nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("joining twice: %d", res.Status)
	}
	res = c.Follow(res)
	if again := i18n.In(l, "You are in this tournament already."); !strings.Contains(res.Body, again) {
		t.Errorf("joining twice: the page does not say %q", again)
	}
	check("joining twice", res)

	// The start comes: the due work is run (the server's own worker may
	// get there first), and round 1 seats the three at one table.
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	var game int64
	for range 100 {
		if tables, ok := eventOf(t, ps[0], id)["tables"].([]any); ok && len(tables) == 1 {
			game = int64(tables[0].(map[string]any)["game_id"].(float64))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if game == 0 {
		t.Fatal("the Swiss event did not seat its first round")
	}
	page := c.Get(fmt.Sprintf("/tournaments/%d", id))
	if !page.Has("featured-live") {
		t.Error("the running event shows no featured table")
	}
	check("running Swiss event", page)
	req, _ := http.NewRequest(http.MethodGet, c.URL()+fmt.Sprintf("/tournaments/%d/standings?round=1", id), nil)
	req.Header.Set("HX-Request", "true")
	res = c.Do(req)
	if res.Status != http.StatusOK || !res.Has("standings") || strings.Contains(res.Body, "<html") {
		t.Errorf("the standings after round 1: %d, a table %v", res.Status, res.Has("standings"))
	}
	check("standings after round 1", res)
	for _, path := range []string{fmt.Sprintf("/games/%d", game), "/u/" + name, "/my/games", "/tournaments", "/tv"} {
		res := c.Get(path)
		if path == "/tv" && !res.Has("tv-game") {
			t.Error("the TV shows no game")
		}
		check(path, res)
	}

	// The mails, in the language: the event has started, and the first
	// table is ready.
	subjects := []string{
		i18n.In(l, "The No Thanks! tournament {{.Tournament}} has started", "Tournament", event),
		i18n.In(l, "Your table in {{.Tournament}} is ready: game #{{.ID}}", "Tournament", event, "ID", game),
	}
	read := map[string]bool{}
	for range 100 {
		if _, err := s.App.Notify.RunOutbox(ctx); err != nil {
			t.Fatal(err)
		}
		for _, m := range smtp.To(strings.ToLower(name) + "@example.com") {
			subject, text, html := readMail(t, m.Raw)
			if !slices.Contains(subjects, subject) || read[subject] {
				continue
			}
			read[subject] = true
			if left := englishIn(l, []string{subject}, subject+" "+text); len(left) > 0 {
				t.Errorf("mail %q: subject and text in English: %q", subject, left)
			}
			if left := leftInEnglish(t, l, html); len(left) > 0 {
				t.Errorf("mail %q: HTML in English: %q", subject, left)
			}
		}
		if len(read) == len(subjects) {
			break
		}
		time.Sleep(50 * time.Millisecond) // the mail worker may be sending them
	}
	for _, subject := range subjects {
		if !read[subject] {
			t.Errorf("no mail %q", subject)
		}
	}
}

// TestBotNamesInTheReadersLanguage: the bots' levels and names are in the
// reader's language in the lobby's menu, at the table, in the lists and in
// the API's English: two Club bots at a Spanish and an Italian table, by
// hand.
func TestBotNamesInTheReadersLanguage(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ann := s.APIFor("Ann")
	_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	for range 2 {
		ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "heuristic"})
	}
	_, open := ann.Do(http.MethodGet, "/api/v1/games", nil)
	if got := fmt.Sprint(open["games"].([]any)[0].(map[string]any)["players"]); got != "[Ann Club bot 1 Club bot 2]" {
		t.Errorf("the API's open games: players %s", got)
	}
	for _, tc := range []struct {
		lang           i18n.Lang
		club, beginner string
	}{
		{i18n.Spanish, "Bot de club", "Bot principiante"},
		{i18n.Italian, "Bot da circolo", "Bot principiante"},
	} {
		c := loggedIn(t, s, ann)
		c.PostForm("/lang", url.Values{"lang": {string(tc.lang)}, "next": {"/"}})
		lobby := c.Get(fmt.Sprintf("/games/%d", id))
		var menu []string
		lobby.Doc().Find(`[data-testid="bot-level"] option`).Each(func(_ int, o *goquery.Selection) { menu = append(menu, o.Text()) })
		if len(menu) != 4 || !strings.HasPrefix(menu[0], tc.beginner+":") || !strings.HasPrefix(menu[1], tc.club+":") {
			t.Errorf("%s: the lobby's menu %q", tc.lang, menu)
		}
		for _, page := range []*apptest.Response{lobby, c.Get("/games"), c.Get("/my/games")} {
			body := strings.Join(strings.Fields(page.Doc().Find("main").Text()), " ")
			if !strings.Contains(body, tc.club+" 1") || !strings.Contains(body, tc.club+" 2") || strings.Contains(body, "Club bot") || strings.Contains(body, "heuristic") {
				t.Errorf("%s: a page names the bots otherwise: %s", tc.lang, body)
			}
		}
	}
}

// readMail decodes a delivered mail: its subject, text and HTML parts.
func readMail(t *testing.T, raw []byte) (subject, text, html string) {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ = new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(r *multipart.Reader)
	walk = func(r *multipart.Reader) {
		for {
			p, err := r.NextPart()
			if err != nil {
				return
			}
			ct, ps, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
			if strings.HasPrefix(ct, "multipart/") {
				walk(multipart.NewReader(p, ps["boundary"]))
				continue
			}
			var body io.Reader = p
			if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
				body = quotedprintable.NewReader(p)
			}
			b, _ := io.ReadAll(body)
			if ct == "text/html" {
				html = string(b)
			} else {
				text = string(b)
			}
		}
	}
	walk(multipart.NewReader(m.Body, params["boundary"]))
	return subject, text, html
}
