package db_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/lib/pq"

	"nothanks/internal/db"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"TooManyClients", &pq.Error{Code: "53300"}, true},
		{"TooManyClientsWrapped", fmt.Errorf("db: open games: %w", &pq.Error{Code: "53300"}), true},
		{"StartingUp", &pq.Error{Code: "57P03"}, true},
		{"StatementCancelled", &pq.Error{Code: "57014"}, true},
		{"ConnectionFailure", &pq.Error{Code: "08006"}, true},
		{"ConnectionRefused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"BadConn", fmt.Errorf("db: x: %w", driver.ErrBadConn), true},
		{"ErrUniqueViolation", &pq.Error{Code: "23505"}, false},
		{"ErrSyntax", &pq.Error{Code: "42601"}, false},
		{"ErrNotFound", db.ErrNotFound, false},
		{"ErrCancelled", context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := db.Unavailable(tt.err); got != tt.want {
				t.Errorf("Unavailable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
