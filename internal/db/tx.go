package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Tx is a transaction with the queries that must run together (lock the
// game, append moves, update the game, notify).
type Tx struct {
	tx          *sqlx.Tx
	afterCommit []func()
}

// Tx runs fn in one transaction, committed when fn returns nil; then the
// functions registered with AfterCommit run.
func (s *Store) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	t := &Tx{}
	err := s.InTx(ctx, func(tx *sqlx.Tx) error {
		t.tx = tx
		return fn(t)
	})
	if err != nil {
		return err
	}
	for _, f := range t.afterCommit {
		f()
	}
	return nil
}

// AfterCommit runs f once the transaction has committed (never when it
// rolls back).
func (t *Tx) AfterCommit(f func()) { t.afterCommit = append(t.afterCommit, f) }

// queryer is what the read queries need: the pool or a transaction.
type queryer interface {
	sqlx.QueryerContext
	sqlx.ExecerContext
}

func get(ctx context.Context, q queryer, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, q, dest, query, args...)
}

func sel(ctx context.Context, q queryer, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, q, dest, query, args...)
}

func exec(ctx context.Context, q queryer, what string, query string, args ...any) error {
	if _, err := q.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("db: %s: %w", what, err)
	}
	return nil
}
