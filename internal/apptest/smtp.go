package apptest

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"nothanks/internal/config"
)

// SMTPServer is a real SMTP server in the test process that keeps what it
// receives.
type SMTPServer struct {
	Addr string
	mu   sync.Mutex
	msgs []Received
	// FailNext makes the next n deliveries fail with a temporary error.
	failNext int
}

// Received is one delivered mail.
type Received struct {
	From string
	To   []string
	Raw  []byte
}

// Header reads a header of the mail.
func (r Received) Header(name string) string {
	m, err := mail.ReadMessage(bytes.NewReader(r.Raw))
	if err != nil {
		return ""
	}
	v := m.Header.Get(name)
	if dec, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
		return dec
	}
	return v
}

// Parts returns the body parts by content type (text/plain, text/html).
func (r Received) Parts() map[string]string {
	out := map[string]string{}
	m, err := mail.ReadMessage(bytes.NewReader(r.Raw))
	if err != nil {
		return out
	}
	mt, params, _ := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "multipart/") {
		b, _ := io.ReadAll(m.Body)
		out[mt] = string(b)
		return out
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return out
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		b, _ := io.ReadAll(decode(p))
		out[ct] = string(b)
	}
}

func decode(p *multipart.Part) io.Reader {
	if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		return qpReader(p)
	}
	return p
}

// NewSMTP starts an SMTP server on a free local port.
func NewSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// WithSMTP points a test server's mail at s.
func WithSMTP(s *SMTPServer) Option {
	return WithConfig(func(c *config.Config) { c.SMTPURL = "smtp://" + s.Addr })
}

// Messages returns what was delivered so far.
func (s *SMTPServer) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.msgs...)
}

// To returns the mails delivered to an address.
func (s *SMTPServer) To(addr string) []Received {
	var out []Received
	for _, m := range s.Messages() {
		for _, to := range m.To {
			if strings.EqualFold(to, addr) {
				out = append(out, m)
			}
		}
	}
	return out
}

// FailNext makes the next n deliveries fail.
func (s *SMTPServer) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = n
}

type backend struct{ s *SMTPServer }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *SMTPServer
	from string
	to   []string
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error { x.from = from; return nil }
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error   { x.to = append(x.to, to); return nil }
func (x *session) Reset()                                      { x.from, x.to = "", nil }
func (x *session) Logout() error                               { return nil }

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if x.s.failNext > 0 {
		x.s.failNext--
		return &smtp.SMTPError{Code: 451, Message: "try again later"}
	}
	x.s.msgs = append(x.s.msgs, Received{From: x.from, To: x.to, Raw: raw})
	return nil
}
