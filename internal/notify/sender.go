package notify

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"

	gomail "github.com/wneessen/go-mail"
)

// Message is one composed mail.
type Message struct {
	To        string
	Subject   string
	Text      string
	HTML      string
	MessageID string
	// Unsubscribe is the one-click unsubscribe URL, if the mail has one.
	Unsubscribe string
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTPSender sends through an SMTP server given as a URL:
// smtp://user:pass@host:587 (STARTTLS when offered), smtps://host:465 (TLS),
// or smtp://host:1025 with no user (no authentication, as Mailpit).
type SMTPSender struct {
	host string
	opts []gomail.Option
	from string
}

// NewSMTPSender parses the URL.
func NewSMTPSender(raw, from string) (*SMTPSender, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("notify: SMTP_URL must look like smtp://user:pass@host:587 or smtps://host:465, not %q", raw)
	}
	s := &SMTPSender{host: u.Hostname(), from: from}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		s.opts = append(s.opts, gomail.WithSSL())
	} else {
		s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("notify: SMTP_URL port %q", p)
		}
	}
	s.opts = append(s.opts, gomail.WithPort(port))
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		s.opts = append(s.opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return s, nil
}

// Send delivers one message with a plain text and an HTML part.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("notify: MAIL_FROM %q: %w", s.from, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("notify: recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDate()
	if m.Unsubscribe != "" {
		msg.SetGenHeader(gomail.HeaderListUnsubscribe, "<"+m.Unsubscribe+">")
		msg.SetGenHeader(gomail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	client, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("notify: SMTP client: %w", err)
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("notify: send to %s: %w", m.To, err)
	}
	return nil
}

// LogSender writes each message to the log instead of sending it (no
// SMTP_URL: development).
type LogSender struct {
	Log *slog.Logger
}

// Send logs the message.
func (l LogSender) Send(_ context.Context, m Message) error {
	l.Log.Info("mail (not sent: SMTP_URL is unset)", "to", m.To, "subject", m.Subject, "message_id", m.MessageID, "text", m.Text)
	return nil
}
