package db_test

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
)

func TestUsersAreUniqueIgnoringCase(t *testing.T) {
	s := dbtest.New(t)
	ctx := context.Background()
	now := time.Now()
	if _, err := s.CreateUser(ctx, "Alice", "alice@example.com", "h", now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, "ALICE", "other@example.com", "h", now); !errors.Is(err, db.ErrUsernameTaken) {
		t.Errorf("ALICE after Alice: %v, want ErrUsernameTaken", err)
	}
	if _, err := s.CreateUser(ctx, "Bob", "Alice@Example.COM", "h", now); !errors.Is(err, db.ErrEmailTaken) {
		t.Errorf("same email in other case: %v, want ErrEmailTaken", err)
	}
	u, err := s.UserByLogin(ctx, "ALICE@example.com")
	if err != nil || u.Username != "Alice" {
		t.Errorf("UserByLogin by email: %+v, %v", u, err)
	}
	if _, err := s.UserByName(ctx, "nobody"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("unknown user: %v, want ErrNotFound", err)
	}
}

func TestSecretIsSharedByConcurrentInstances(t *testing.T) {
	s := dbtest.New(t)
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.Secret(context.Background(), "k", func() ([]byte, error) {
				b := make([]byte, 16)
				_, err := rand.Read(b)
				return b, err
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	wg.Wait()
	for i := range got {
		if string(got[i]) != string(got[0]) {
			t.Fatal("instances got different secrets")
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	s := dbtest.New(t)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrating a migrated database: %v", err)
	}
}

func TestRedact(t *testing.T) {
	got := db.Redact("postgres://u:secret@h:5432/d?sslmode=disable")
	if got != "postgres://u:xxxxx@h:5432/d?sslmode=disable" {
		t.Errorf("Redact = %q", got)
	}
}
