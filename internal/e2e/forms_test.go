package e2e

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
	"nothanks/internal/i18n"
)

// sentForm is a form found on a page of the tour, with the values a browser
// would send for it as it stands.
type sentForm struct {
	page   string
	action string
	values url.Values
}

// formsOf lists the POST forms of a page, with what pressing their first
// submit button sends.
func formsOf(page string, doc *goquery.Document) []sentForm {
	var out []sentForm
	doc.Find("form").Each(func(_ int, f *goquery.Selection) {
		if !strings.EqualFold(f.AttrOr("method", "get"), "post") {
			return
		}
		action := f.AttrOr("action", page)
		v := url.Values{}
		f.Find("input, select, textarea").Each(func(_ int, in *goquery.Selection) {
			name, ok := in.Attr("name")
			if !ok || name == "" {
				return
			}
			switch {
			case goquery.NodeName(in) == "select":
				opt := in.Find("option[selected]").First()
				if opt.Length() == 0 {
					opt = in.Find("option").First()
				}
				v.Add(name, opt.AttrOr("value", opt.Text()))
			case in.AttrOr("type", "") == "checkbox" || in.AttrOr("type", "") == "radio":
				if _, checked := in.Attr("checked"); checked {
					v.Add(name, in.AttrOr("value", "on"))
				}
			default:
				v.Add(name, in.AttrOr("value", in.Text()))
			}
		})
		if b := f.Find("button[name]").First(); b.Length() > 0 {
			v.Add(b.AttrOr("name", ""), b.AttrOr("value", ""))
		}
		out = append(out, sentForm{page: page, action: action, values: v})
	})
	return out
}

// TestEveryFormOfTheTourCarriesItsToken finds every form on every page of
// the tour, as a visitor and as a member, and sends it as it stands the way
// a browser or proxy that sends no Sec-Fetch-Site header would: none may be
// refused as expired or cross-site (the CSRF check), which is what happens
// to a form without its token.
func TestEveryFormOfTheTourCarriesItsToken(t *testing.T) {
	tr := newTour(t)
	var expired []string
	for _, l := range i18n.Langs {
		expired = append(expired, i18n.T(i18n.With(context.Background(), l), "This form expired or came from another site. Reload the page and try again."))
	}
	check := func(who string, c *apptest.Client, pages []tourPage) {
		t.Helper()
		var forms []sentForm
		for _, p := range pages {
			res := c.Get(p.path)
			if res.Status >= 500 {
				t.Fatalf("%s %s: %d", who, p.path, res.Status)
			}
			forms = append(forms, formsOf(p.path, res.Doc())...)
		}
		// Leaving the site comes last: it ends the session the others need.
		var last []sentForm
		seen := 0
		for _, f := range forms {
			if f.action == "/logout" || f.action == "/settings/delete" {
				last = append(last, f)
				continue
			}
			post(t, c, f, expired)
			seen++
		}
		for _, f := range last {
			post(t, c, f, expired)
			seen++
		}
		if seen < len(pages) {
			t.Errorf("%s: only %d forms on %d pages: the tour found too little to test", who, seen, len(pages))
		}
	}
	check("visitor", tr.s.Client(), tr.visitor)
	member := tr.s.Client()
	if res := member.Login("Tourist", apptest.Password); res.Status != http.StatusSeeOther {
		t.Fatalf("log in: %d", res.Status)
	}
	check("member", member, tr.member)
}

func post(t *testing.T, c *apptest.Client, f sentForm, expired []string) {
	t.Helper()
	if _, ok := f.values["_csrf"]; !ok && !strings.HasPrefix(f.action, "/unsubscribe") && !strings.HasPrefix(f.action, "/m?") {
		t.Errorf("the form to %s on %s carries no CSRF token", f.action, f.page)
	}
	req, _ := http.NewRequest(http.MethodPost, c.URL()+f.action, strings.NewReader(f.values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := c.Do(req)
	for _, msg := range expired {
		if res.Status == http.StatusForbidden && (strings.Contains(res.Body, msg) || strings.Contains(res.Body, html.EscapeString(msg))) {
			t.Errorf("the form to %s on %s is refused as expired without Sec-Fetch-Site", f.action, f.page)
		}
	}
}

// TestRefusedFormKeepsTheMembersMenu: a form refused by the CSRF check
// shows its error page with the member's own menu (their name, log out),
// not the visitor's, and that page's forms carry the token again.
func TestRefusedFormKeepsTheMembersMenu(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	c := s.Client().Register("Mira")
	req, _ := http.NewRequest(http.MethodPost, c.URL()+"/settings/tokens", strings.NewReader("name=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := c.Do(req)
	if res.Status != http.StatusForbidden {
		t.Fatalf("a form without its token: %d, want 403", res.Status)
	}
	if got := res.TestID("nav-user"); got != "Mira" {
		t.Errorf("the error page's menu names %q, want Mira", got)
	}
	if res.Has("nav-login") {
		t.Error("the error page offers a member to log in")
	}
	if tok := res.Doc().Find(`form[action="/logout"] input[name="_csrf"]`).AttrOr("value", ""); tok == "" || tok != c.CSRFToken() {
		t.Errorf("the error page's log-out form carries token %q, want the browser's", tok)
	}
}
