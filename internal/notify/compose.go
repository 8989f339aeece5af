package notify

import (
	"bytes"
	"context"
	"strings"

	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// mailView is what every mail says, before it becomes text and HTML.
type mailView struct {
	Heading string
	Lines   []string
	// Said quotes chat messages under SaidHeading.
	SaidHeading string
	Said        []views.MailQuote
	Items       []mailLink
	Actions     []mailLink
	Note        string
}

type mailLink struct {
	Label string
	URL   string
}

// message renders a mail with a plain text and an HTML part. kind names
// the mail's unsubscribe link ("" for mails a user cannot turn off).
func (s *Service) message(r db.Recipient, kind, subject string, v mailView) *Message {
	m := &Message{Subject: subject}
	settings := s.url("/settings#notifications")
	if kind != "" {
		m.Unsubscribe = s.unsubscribeURL(r.ID, kind)
	}
	var t strings.Builder
	t.WriteString(v.Heading + "\n\n")
	for _, l := range v.Lines {
		t.WriteString(l + "\n")
	}
	if len(v.Said) > 0 {
		t.WriteString("\n" + v.SaidHeading + "\n")
		for _, q := range v.Said {
			t.WriteString("  " + q.Author + ": " + q.Body + "\n")
		}
	}
	if len(v.Items) > 0 {
		t.WriteString("\n")
		for _, it := range v.Items {
			t.WriteString("- " + it.Label + "\n  " + it.URL + "\n")
		}
	}
	if len(v.Actions) > 0 {
		t.WriteString("\n")
		for _, a := range v.Actions {
			t.WriteString(a.Label + ": " + a.URL + "\n")
		}
	}
	if v.Note != "" {
		t.WriteString("\n" + v.Note + "\n")
	}
	t.WriteString("\n-- \nNo Thanks! · " + s.base.String() + "\n" + tr(r, "Mail settings") + ": " + settings + "\n")
	if m.Unsubscribe != "" {
		t.WriteString(tr(r, "Stop these mails") + ": " + m.Unsubscribe + "\n")
	}
	m.Text = t.String()

	hv := views.MailView{Heading: v.Heading, Lines: v.Lines, SaidHeading: v.SaidHeading, Said: v.Said, Note: v.Note, SiteURL: s.base.String(), SettingsURL: settings, UnsubscribeURL: m.Unsubscribe}
	for _, it := range v.Items {
		hv.Items = append(hv.Items, views.MailLink{Label: it.Label, URL: it.URL})
	}
	for _, a := range v.Actions {
		hv.Actions = append(hv.Actions, views.MailLink{Label: a.Label, URL: a.URL})
	}
	var b bytes.Buffer
	if err := views.Mail(hv).Render(i18n.With(context.Background(), lang(r)), &b); err != nil {
		s.log.Error("render mail", "err", err)
	}
	m.HTML = b.String()
	return m
}
