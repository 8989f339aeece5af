package db

import (
	"context"
	"fmt"
)

// Secret returns the secret called name, storing the value made by generate
// the first time it is asked for. Several instances asking at once all get
// the one value that was stored first.
func (s *Store) Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error) {
	fresh, err := generate()
	if err != nil {
		return nil, fmt.Errorf("db: generate secret %q: %w", name, err)
	}
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return nil, fmt.Errorf("db: store secret %q: %w", name, err)
	}
	var value []byte
	if err := s.DB.GetContext(ctx, &value, `SELECT value FROM server_secrets WHERE name = $1`, name); err != nil {
		return nil, fmt.Errorf("db: load secret %q: %w", name, err)
	}
	return value, nil
}
