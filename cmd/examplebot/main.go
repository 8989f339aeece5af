// Command examplebot is a small No Thanks! bot that plays on the site
// through the JSON API's streams (docs/bots.md): it accepts invitations
// and offers to play again, and plays every game it is seated at.
//
//	NT_TOKEN=nt_... go run ./cmd/examplebot -url http://localhost:8080
//
// It is an example to copy: it uses only the public API, none of the
// site's own packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "examplebot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("examplebot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", "http://localhost:8080", "the site's address")
	accept := fs.Bool("accept", true, "accept every invitation and offer to play again")
	games := fs.Int("games", 0, "stop after this many games (0: never)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	token := getenv("NT_TOKEN")
	if token == "" {
		return errors.New("set NT_TOKEN to the bot account's personal token (Settings → API tokens)")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := &Bot{Base: *base, Token: token, HTTP: &http.Client{}, Accept: *accept, Games: *games,
		Log: slog.New(slog.NewTextHandler(stderr, nil))}
	b.Log.Info("playing", "site", *base)
	return b.Run(ctx)
}
