package db

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Tx is a transaction with the queries that must run together (lock the
// game, append moves, update the game, notify).
type Tx struct {
	tx          *sqlx.Tx
	store       *Store
	afterCommit []func()
	notes       []note
}

// Tx runs fn in one transaction, committed when fn returns nil; then the
// functions registered with AfterCommit run.
func (s *Store) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	t := &Tx{store: s}
	err := s.InTx(ctx, func(tx *sqlx.Tx) error {
		t.tx = tx
		return fn(t)
	})
	if err != nil {
		return err
	}
	if len(t.notes) > 0 {
		s.notify(t.notes)
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

// hot holds the statements every move runs, prepared once per connection so
// that Postgres neither parses nor plans them again.
type hot struct {
	mu    sync.Mutex
	stmts map[string]*sqlx.Stmt
}

// prepare returns a hot statement, preparing it the first time.
func (h *hot) prepare(ctx context.Context, db *sqlx.DB, query string) (*sqlx.Stmt, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.stmts[query]; ok {
		return st, nil
	}
	st, err := db.PreparexContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("db: prepare: %w", err)
	}
	if h.stmts == nil {
		h.stmts = map[string]*sqlx.Stmt{}
	}
	h.stmts[query] = st
	return st, nil
}

// stmt returns the transaction's handle on a prepared hot statement.
func (t *Tx) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	st, err := t.store.hot.prepare(ctx, t.store.DB, query)
	if err != nil {
		return nil, err
	}
	return t.tx.StmtxContext(ctx, st), nil
}
