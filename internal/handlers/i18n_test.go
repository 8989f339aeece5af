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
	"strings"
	"testing"

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
				fmt.Sprintf("/games/%d/board", playing), "/docs/api", "/no/such/page", "/games/999999"} {
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
			for _, path := range []string{"/settings", "/my/games", "/games/new", "/ranked", "/u/" + name, "/following", "/u/Ann", fmt.Sprintf("/games/%d/replay", finished)} {
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
			if missing := i18n.Missing(); len(missing) > 0 {
				t.Errorf("messages missing from the catalogues: %q", missing)
			}
		})
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
