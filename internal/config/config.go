// Package config reads the server's settings from the environment. Every
// variable has a default that runs the app on a developer's machine; the
// README lists them all.
package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is the server's settings.
type Config struct {
	DatabaseURL string
	// DatabaseURLSet: DATABASE_URL was given, and is then the only
	// database tried (an unreachable one is an error). Unset, DatabaseURL
	// is the server at DefaultPGAddr, and the app starts a Postgres of its
	// own (internal/pgembed) when nothing answers there.
	DatabaseURLSet bool
	// DefaultPGAddr is where a Postgres is looked for without DATABASE_URL.
	DefaultPGAddr string
	// EmbeddedPGDir is where the app's own Postgres keeps its data (empty:
	// pgembed.DefaultDir), EmbeddedPGBin the directory of the Postgres
	// programs it runs (empty: installed ones, else downloaded).
	EmbeddedPGDir  string
	EmbeddedPGBin  string
	Addr           string
	BaseURL        *url.URL
	SessionSecret  string
	SMTPURL        string
	MailFrom       string
	TrustedProxies []*net.IPNet
	LogLevel       slog.Level
	RequestTimeout time.Duration
	// BodyTimeout bounds the reading of a request body (event streams
	// have none), so that a client trickling a body cannot hold the server.
	BodyTimeout time.Duration
	// DBMaxConns is the size of this instance's Postgres pool.
	DBMaxConns int
	// MaxConnsPerIP caps a client address's open connections (0: no cap).
	// Addresses in TrustedProxies are exempt.
	MaxConnsPerIP int
	// MetricsToken opens /metrics (and Go's profiles, /debug/pprof/) to
	// "Authorization: Bearer <token>"; empty: neither.
	MetricsToken string
	// AnalysisShare is the part of one core the background analysis of
	// finished games may take while people play on the instance
	// (ANALYSIS_SHARE, default 0.25; 1: as much as it wants).
	AnalysisShare float64
	// Web Push: the VAPID key pair (base64url, both or neither; neither:
	// a pair generated once and kept in the database), the subject the
	// push services may contact (mailto: or https:), and whether devices
	// may name endpoints on loopback or private addresses (development and
	// tests only: a push endpoint is a URL the server posts to).
	PushPublicKey  string
	PushPrivateKey string
	PushSubject    string
	PushAllowLocal bool
}

// MinDBMaxConns leaves requests a few connections beside the ten kept
// for background work (see app.WorkerConns).
const MinDBMaxConns = 12

// DefaultPGAddr is where a Postgres is looked for when DATABASE_URL is
// unset (the tests' server too); DEFAULT_PG_ADDR changes it.
const DefaultPGAddr = "127.0.0.1:5432"

// DatabaseURLAt is the URL of a database on the local Postgres at addr, as
// user postgres without a password; lib/pq would require TLS without
// sslmode=disable, which a local server rarely offers.
func DatabaseURLAt(addr, database string) string {
	return "postgres://postgres@" + addr + "/" + database + "?sslmode=disable"
}

// PGAddr is where a Postgres is looked for without DATABASE_URL:
// DEFAULT_PG_ADDR (a host:port), else DefaultPGAddr. The tests' server
// is looked for there too.
func PGAddr(getenv func(string) string) (string, error) {
	addr := strings.TrimSpace(getenv("DEFAULT_PG_ADDR"))
	if addr == "" {
		return DefaultPGAddr, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", fmt.Errorf("config: DEFAULT_PG_ADDR must be a host:port such as 127.0.0.1:5432, not %q", addr)
	}
	return addr, nil
}

// Load reads the settings through getenv (os.Getenv in main).
func Load(getenv func(string) string) (Config, error) {
	get := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		EmbeddedPGDir: get("EMBEDDED_PG_DIR", ""),
		EmbeddedPGBin: get("EMBEDDED_PG_BIN", ""),
		Addr:          get("ADDR", "localhost:8080"),
		SessionSecret: getenv("SESSION_SECRET"),
		SMTPURL:       get("SMTP_URL", ""),
		MailFrom:      get("MAIL_FROM", "No Thanks! <no-reply@localhost>"),
	}
	var err error
	if c.DefaultPGAddr, err = PGAddr(getenv); err != nil {
		return Config{}, err
	}
	c.DatabaseURL = get("DATABASE_URL", DatabaseURLAt(c.DefaultPGAddr, "nothanks"))
	c.DatabaseURLSet = strings.TrimSpace(getenv("DATABASE_URL")) != ""
	if c.EmbeddedPGDir != "" && !filepath.IsAbs(c.EmbeddedPGDir) {
		return Config{}, fmt.Errorf("config: EMBEDDED_PG_DIR must be an absolute path, not %q", c.EmbeddedPGDir)
	}
	base, err := url.Parse(get("BASE_URL", "http://"+c.Addr))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return Config{}, fmt.Errorf("config: BASE_URL must be an http or https URL such as https://nothanks.example, not %q", getenv("BASE_URL"))
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	c.BaseURL = base
	if c.SessionSecret != "" && len(c.SessionSecret) < 32 {
		return Config{}, fmt.Errorf("config: SESSION_SECRET must have at least 32 characters (or be unset to let the server keep generated keys in the database)")
	}
	for _, p := range strings.Split(get("TRUSTED_PROXIES", ""), ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			if strings.Contains(p, ":") {
				p += "/128"
			} else {
				p += "/32"
			}
		}
		_, n, err := net.ParseCIDR(p)
		if err != nil {
			return Config{}, fmt.Errorf("config: TRUSTED_PROXIES: %q is not an IP address or CIDR range", p)
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL", "info"))); err != nil {
		return Config{}, fmt.Errorf("config: LOG_LEVEL must be debug, info, warn or error")
	}
	timeout, err := time.ParseDuration(get("REQUEST_TIMEOUT", "15s"))
	if err != nil || timeout <= 0 {
		return Config{}, fmt.Errorf("config: REQUEST_TIMEOUT must be a duration such as 15s")
	}
	c.RequestTimeout = timeout
	if c.BodyTimeout, err = time.ParseDuration(get("BODY_TIMEOUT", "10s")); err != nil || c.BodyTimeout <= 0 {
		return Config{}, fmt.Errorf("config: BODY_TIMEOUT must be a duration such as 10s")
	}
	if c.DBMaxConns, err = strconv.Atoi(get("DB_MAX_CONNS", "20")); err != nil || c.DBMaxConns < MinDBMaxConns {
		return Config{}, fmt.Errorf("config: DB_MAX_CONNS must be a whole number of at least %d", MinDBMaxConns)
	}
	if c.MaxConnsPerIP, err = strconv.Atoi(get("MAX_CONNS_PER_IP", "0")); err != nil || c.MaxConnsPerIP < 0 {
		return Config{}, fmt.Errorf("config: MAX_CONNS_PER_IP must be a whole number (0: no cap)")
	}
	c.MetricsToken = get("METRICS_TOKEN", "")
	if c.AnalysisShare, err = strconv.ParseFloat(get("ANALYSIS_SHARE", "0.25"), 64); err != nil || !(c.AnalysisShare > 0 && c.AnalysisShare <= 1) {
		return Config{}, fmt.Errorf("config: ANALYSIS_SHARE must be a share of one core above 0, up to 1 (got %q)", get("ANALYSIS_SHARE", "0.25"))
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		return Config{}, fmt.Errorf("config: METRICS_TOKEN must have at least 16 characters (or be unset to turn /metrics off)")
	}
	c.PushPublicKey, c.PushPrivateKey = get("PUSH_VAPID_PUBLIC_KEY", ""), get("PUSH_VAPID_PRIVATE_KEY", "")
	if (c.PushPublicKey == "") != (c.PushPrivateKey == "") {
		return Config{}, fmt.Errorf("config: PUSH_VAPID_PUBLIC_KEY and PUSH_VAPID_PRIVATE_KEY go together: set both or neither")
	}
	c.PushSubject = get("PUSH_SUBJECT", "")
	if c.PushSubject == "" {
		c.PushSubject = defaultPushSubject(c)
	}
	if !strings.HasPrefix(c.PushSubject, "mailto:") && !strings.HasPrefix(c.PushSubject, "https://") {
		return Config{}, fmt.Errorf("config: PUSH_SUBJECT must be a mailto: or https: URL that push services can reach you at, not %q", c.PushSubject)
	}
	switch get("PUSH_ALLOW_LOCAL", "") {
	case "", "0", "false":
	case "1", "true":
		c.PushAllowLocal = true
	default:
		return Config{}, fmt.Errorf("config: PUSH_ALLOW_LOCAL must be 1 or 0")
	}
	return c, nil
}

// defaultPushSubject is the site's https address, or else the address mail
// comes from.
func defaultPushSubject(c Config) string {
	if c.BaseURL.Scheme == "https" {
		return c.BaseURL.String()
	}
	if a, err := mail.ParseAddress(c.MailFrom); err == nil {
		return "mailto:" + a.Address
	}
	return "mailto:no-reply@localhost"
}

// Secure reports whether the site is served over https (Secure cookies, HSTS).
func (c Config) Secure() bool { return c.BaseURL.Scheme == "https" }
