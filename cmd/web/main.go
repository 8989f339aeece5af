// Command web serves the No Thanks! site. It only wires: configuration from
// the environment, the database (a Postgres of its own when DATABASE_URL is
// unset and none runs at the default address) and migrations, the
// services, the HTTP server and a graceful shutdown.
//
//	web          run the server (applies migrations first)
//	web migrate  apply migrations and exit
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // time zones for mail, also where the system has none

	"nothanks/internal/app"
	"nothanks/internal/clock"
	"nothanks/internal/config"
	"nothanks/internal/handlers"
	"nothanks/internal/moderation"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "nothanks:", err)
		os.Exit(1)
	}
}

// run starts the server and blocks until ctx is done, then shuts down.
// Tests call it with their own environment and read the URL from stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	slog.SetDefault(logger)

	command := "serve"
	if len(args) > 0 {
		command = args[0]
	}
	if command != "serve" && command != "migrate" && command != "admin" && command != "fairplay" {
		return fmt.Errorf("unknown command %q (want: serve, migrate, admin grant|revoke NAME, or fairplay rebuild)", command)
	}
	if command == "fairplay" && (len(args) != 2 || args[1] != "rebuild") {
		return fmt.Errorf("usage: web fairplay rebuild")
	}
	if command == "admin" && (len(args) != 3 || (args[1] != "grant" && args[1] != "revoke")) {
		return fmt.Errorf("usage: web admin grant NAME (or: web admin revoke NAME)")
	}

	store, dbURL, closeDB, err := openDatabase(ctx, cfg, getenv, stdout)
	if err != nil {
		return err
	}
	defer closeDB()
	cfg.DatabaseURL = dbURL // the embedded server's, if it is the one
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	if command == "migrate" {
		fmt.Fprintln(stdout, "migrations applied")
		return nil
	}
	if command == "admin" {
		grant := args[1] == "grant"
		if err := moderation.New(store, clock.Real{}, nil).Grant(ctx, args[2], grant); err != nil {
			return err
		}
		if grant {
			fmt.Fprintf(stdout, "%s is a moderator now (the action is in the moderation log)\n", args[2])
		} else {
			fmt.Fprintf(stdout, "%s is no longer a moderator\n", args[2])
		}
		return nil
	}

	a, err := app.New(ctx, cfg, store, clock.Real{}, logger)
	if err != nil {
		return err
	}
	if command == "fairplay" {
		start := time.Now()
		games, pairs, err := a.FairPlay.Rebuild(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "fair-play signals rebuilt from %d rated games: %d pairs, in %s\n", games, pairs, time.Since(start).Round(time.Millisecond))
		return nil
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set ADDR to a free address)", cfg.Addr, err)
	}
	if cfg.MaxConnsPerIP > 0 {
		ln = handlers.LimitConnsPerIP(ln, cfg.MaxConnsPerIP, cfg.TrustedProxies)
	}
	srv := &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// No ReadTimeout or WriteTimeout: event streams stay open. Bodies
		// get a read deadline per request (BODY_TIMEOUT), and handlers a
		// deadline through their context (REQUEST_TIMEOUT).
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	url := cfg.BaseURL.String()
	if getenv("BASE_URL") == "" {
		url = "http://" + ln.Addr().String()
	}
	logger.Info("listening", "addr", ln.Addr().String(), "url", url)
	if cfg.SMTPURL == "" {
		fmt.Fprintln(stdout, `Mail: SMTP_URL is unset, so mails are written to this log instead of being sent: the link that confirms a registration's address is in the text of its "mail (not sent: SMTP_URL is unset)" line`)
	}
	fmt.Fprintf(stdout, "No Thanks! is running: open %s\n", url)

	srv.RegisterOnShutdown(a.Shutdown)
	jobsCtx, stopJobs := context.WithCancel(ctx)
	defer stopJobs()
	jobsDone := make(chan struct{})
	go func() {
		a.Run(jobsCtx)
		close(jobsDone)
	}()
	// The background work ends before the database closes (and, if it is
	// the app's own, stops), however run returns.
	defer func() {
		stopJobs()
		select {
		case <-jobsDone:
		case <-time.After(15 * time.Second):
			logger.Warn("background work still running 15 s after it was asked to stop; closing the database anyway")
		}
	}()

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
