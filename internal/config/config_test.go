package config_test

import (
	"testing"
	"time"

	"nothanks/internal/config"
)

func load(vars map[string]string) (config.Config, error) {
	return config.Load(func(k string) string { return vars[k] })
}

func TestHardeningDefaults(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyTimeout != 10*time.Second || c.DBMaxConns != 20 || c.MaxConnsPerIP != 0 || c.MetricsToken != "" {
		t.Errorf("defaults: BodyTimeout %v, DBMaxConns %d, MaxConnsPerIP %d, MetricsToken %q", c.BodyTimeout, c.DBMaxConns, c.MaxConnsPerIP, c.MetricsToken)
	}
	c, err = load(map[string]string{"BODY_TIMEOUT": "2s", "DB_MAX_CONNS": "12", "MAX_CONNS_PER_IP": "50", "METRICS_TOKEN": "0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyTimeout != 2*time.Second || c.DBMaxConns != 12 || c.MaxConnsPerIP != 50 || c.MetricsToken != "0123456789abcdef" {
		t.Errorf("set: %+v", c)
	}
}

func TestHardeningSettingsRejected(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"ErrBodyTimeout":       {"BODY_TIMEOUT": "soon"},
		"ErrBodyTimeoutZero":   {"BODY_TIMEOUT": "0s"},
		"ErrPoolTooSmall":      {"DB_MAX_CONNS": "9"},
		"ErrPoolNotANumber":    {"DB_MAX_CONNS": "many"},
		"ErrNegativeConnsCap":  {"MAX_CONNS_PER_IP": "-1"},
		"ErrShortMetricsToken": {"METRICS_TOKEN": "short"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := load(vars); err == nil {
				t.Errorf("%v accepted", vars)
			}
		})
	}
}

func TestDatabaseDefaults(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.DatabaseURL, "postgres://postgres@127.0.0.1:5432/nothanks?sslmode=disable"; got != want || c.DatabaseURLSet {
		t.Errorf("unset: DatabaseURL %q (set %v), want %q", got, c.DatabaseURLSet, want)
	}
	c, err = load(map[string]string{"DEFAULT_PG_ADDR": "127.0.0.1:5433", "EMBEDDED_PG_DIR": "/srv/pg"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.DatabaseURL, "postgres://postgres@127.0.0.1:5433/nothanks?sslmode=disable"; got != want || c.EmbeddedPGDir != "/srv/pg" {
		t.Errorf("DEFAULT_PG_ADDR: DatabaseURL %q, EmbeddedPGDir %q", got, c.EmbeddedPGDir)
	}
	c, err = load(map[string]string{"DATABASE_URL": "postgres://db.example/nt", "DEFAULT_PG_ADDR": "127.0.0.1:5433"})
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "postgres://db.example/nt" || !c.DatabaseURLSet {
		t.Errorf("DATABASE_URL: %q (set %v)", c.DatabaseURL, c.DatabaseURLSet)
	}
	for name, vars := range map[string]map[string]string{
		"ErrDefaultAddr":   {"DEFAULT_PG_ADDR": "localhost"},
		"ErrRelativePGDir": {"EMBEDDED_PG_DIR": "pg"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := load(vars); err == nil {
				t.Errorf("%v accepted", vars)
			}
		})
	}
}
