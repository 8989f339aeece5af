package db

import (
	"database/sql/driver"
	"errors"
	"net"

	"github.com/lib/pq"
)

// Unavailable reports whether err means that the database cannot serve
// now, not that the request or the code is wrong: Postgres refuses
// connections (too many clients, starting up or shutting down), the
// connection failed or broke, or a statement was cancelled. Handlers answer
// such errors with 503 and Retry-After rather than 500.
func Unavailable(err error) bool {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code {
		case "53300", // too_many_connections (server, database or role limit)
			"53000", // insufficient_resources
			"53200", // out_of_memory
			"57P01", // admin_shutdown
			"57P02", // crash_shutdown
			"57P03", // cannot_connect_now (starting up, in recovery)
			"57014": // query_canceled (statement_timeout, or the request's deadline)
			return true
		}
		return pqErr.Code.Class() == "08" // connection_exception
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, driver.ErrBadConn)
}
