package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bot plays No Thanks! through the site's JSON API and its streams alone:
// the account's event stream says when a game starts or an invitation
// comes, each game's stream says when it is the bot's turn. It never
// polls. It knows only what the API shows it: nothing of it is the site's
// own code, so it can be copied and changed freely.
type Bot struct {
	// Base is the site's address, e.g. http://localhost:8080.
	Base string
	// Token is the bot account's personal token (Settings → API tokens).
	Token string
	// HTTP sends the requests (its Timeout must be 0: streams are long).
	HTTP *http.Client
	// Accept: accept every invitation and offer to play again.
	Accept bool
	// Games: stop after playing this many games (0: never).
	Games int
	Log   *slog.Logger

	mu      sync.Mutex
	playing map[int64]bool
	played  int
	done    chan struct{}
}

// line is one line of a stream: an event of the account, or a game.
type line struct {
	Type         string `json:"type"`
	GameID       int64  `json:"game_id"`
	InvitationID int64  `json:"invitation_id"`
	Reason       string `json:"reason"`
	Game         *game  `json:"game"`
}

// game is what the bot reads of a game: its view of the table.
type game struct {
	ID       int64  `json:"id"`
	Status   string `json:"status"`
	Version  int    `json:"version"`
	YourTurn bool   `json:"your_turn"`
	YourSeat *int   `json:"your_seat"`
	View     *struct {
		ActiveCard int      `json:"active_card"`
		Pot        int      `json:"pot"`
		Legal      []string `json:"legal"`
		Seats      []struct {
			Cards  []int `json:"cards"`
			Tokens *int  `json:"tokens"`
		} `json:"seats"`
	} `json:"view"`
}

// Run plays until ctx ends or the bot has played its games. A stream that
// drops is opened again (a game's from the last version seen).
func (b *Bot) Run(ctx context.Context) error {
	b.playing, b.done = map[int64]bool{}, make(chan struct{})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-b.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		err := b.stream(ctx, "/api/v1/stream/events", func(l line) error {
			switch l.Type {
			case "game_start":
				b.mu.Lock()
				fresh := !b.playing[l.GameID]
				b.playing[l.GameID] = true
				b.mu.Unlock()
				if fresh {
					wg.Add(1)
					go func() {
						defer wg.Done()
						b.play(ctx, l.GameID)
					}()
				}
			case "invitation":
				if b.Accept {
					inv := fmt.Sprintf("/api/v1/invites/%d", l.InvitationID)
					return b.answer(ctx, inv+"/accept", inv+"/decline", "invitation", l.GameID)
				}
			case "rematch_offer":
				if b.Accept {
					offer := fmt.Sprintf("/api/v1/games/%d/rematch", l.GameID)
					return b.answer(ctx, offer, offer+"/decline", "offer to play again", l.GameID)
				}
			}
			return nil
		})
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errRevoked) {
			return err
		}
		b.Log.Warn("event stream dropped; connecting again", "err", err)
		sleep(ctx, time.Second)
	}
	return nil
}

var errRevoked = errors.New("the token was revoked")

// answer accepts an invitation or an offer to play again (what) by
// posting to accept. One the site refuses (too many games at once, an
// invitation answered meanwhile) is declined by posting to decline, and
// the bot goes on: only a broken connection or a revoked token ends the
// stream, never one refusal.
func (b *Bot) answer(ctx context.Context, accept, decline, what string, game int64) error {
	err := b.post(ctx, accept, nil, 0)
	var r refused
	if !errors.As(err, &r) {
		if err == nil {
			b.Log.Info("accepted", "what", what, "game", game)
		}
		return err
	}
	b.Log.Warn("could not accept", "what", what, "game", game, "err", err)
	if err := b.post(ctx, decline, nil, 0); err != nil && !errors.As(err, &r) {
		return err
	}
	return nil
}

// play follows one game to its end, deciding whenever it is the bot's turn.
func (b *Bot) play(ctx context.Context, id int64) {
	version := -1
	for ctx.Err() == nil {
		path := fmt.Sprintf("/api/v1/games/%d/stream", id)
		if version >= 0 {
			path += fmt.Sprintf("?version=%d", version)
		}
		over := false
		if version < 0 {
			b.Log.Info("game started", "game", id)
		}
		err := b.stream(ctx, path, func(l line) error {
			if l.Type != "game" || l.Game == nil || l.Game.Version < version {
				return nil
			}
			g := l.Game
			version = g.Version
			if g.Status == "finished" {
				over = true
				return io.EOF
			}
			if !g.YourTurn || g.View == nil {
				return nil
			}
			move := decide(g)
			err := b.post(ctx, fmt.Sprintf("/api/v1/games/%d/%s", id, move), map[string]int{"version": g.Version}, 3)
			var r refused
			if errors.As(err, &r) && r.status == http.StatusConflict {
				return nil // the game moved on: its next line says how
			}
			if err == nil {
				b.Log.Info("decided", "game", id, "version", g.Version, "card", g.View.ActiveCard, "pot", g.View.Pot, "move", move)
			}
			return err
		})
		if over {
			b.mu.Lock()
			delete(b.playing, id)
			b.played++
			if b.Games > 0 && b.played >= b.Games {
				select {
				case <-b.done:
				default:
					close(b.done)
				}
			}
			b.mu.Unlock()
			b.Log.Info("game over", "game", id)
			return
		}
		if ctx.Err() != nil || errors.Is(err, errRevoked) {
			return
		}
		b.Log.Warn("game stream dropped; resuming", "game", id, "version", version, "err", err)
		sleep(ctx, time.Second)
	}
}

// decide takes a card that joins one of the bot's own cards (a run costs
// only its lowest card), or one whose pot pays for a good part of it, or
// when it has no token left; otherwise it says No thanks!.
func decide(g *game) string {
	v := g.View
	if !slices.Contains(v.Legal, "pass") {
		return "take"
	}
	me := v.Seats[*g.YourSeat]
	if slices.Contains(me.Cards, v.ActiveCard-1) || slices.Contains(me.Cards, v.ActiveCard+1) {
		return "take"
	}
	cost := v.ActiveCard - v.Pot
	tokens := 0
	if me.Tokens != nil {
		tokens = *me.Tokens
	}
	if cost <= v.ActiveCard*2/5 || (tokens <= 3 && cost <= v.ActiveCard*7/10) {
		return "take"
	}
	return "pass"
}

// stream reads an API stream line by line until it ends, on hands each
// line it cannot take (its error ends the stream), or ctx ends.
func (b *Bot) stream(ctx context.Context, path string, on func(line) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.Base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.Token)
	res, err := b.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return answerError(res)
	}
	r := bufio.NewReader(res.Body)
	for {
		raw, err := r.ReadBytes('\n')
		if err != nil {
			return err
		}
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("a line that is not JSON: %q", raw)
		}
		if l.Type == "end" {
			if l.Reason == "revoked" {
				return errRevoked
			}
			return fmt.Errorf("the server ended the stream: %s", l.Reason)
		}
		if err := on(l); err != nil {
			return err
		}
	}
}

// refused is a 4xx answer other than 401: the site understood the
// request and said no (409: the game moved on since the bot looked; 403,
// 422 or 429: not allowed, not now), with its message.
type refused struct {
	status int
	msg    string
}

func (r refused) Error() string { return r.msg }

// post sends a request with a JSON body and reads its answer. A 429 (too
// many moves a minute) is waited out as its Retry-After says and sent
// again, up to retries times; after that it is a refusal.
func (b *Bot) post(ctx context.Context, path string, body any, retries int) error {
	raw, _ := json.Marshal(body)
	for try := 0; ; try++ {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(raw)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.Base+path, r)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+b.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := b.HTTP.Do(req)
		if err != nil {
			return err
		}
		wait, err := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.StatusCode == http.StatusTooManyRequests && err == nil && wait > 0 && try < retries {
			res.Body.Close()
			b.Log.Warn("too many requests; waiting", "path", path, "seconds", wait)
			sleep(ctx, time.Duration(wait)*time.Second)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		defer res.Body.Close()
		if res.StatusCode >= 300 {
			return answerError(res)
		}
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
}

// answerError is an API error answer as an error, with its message.
func answerError(res *http.Response) error {
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	_ = json.Unmarshal(raw, &e)
	msg := fmt.Sprintf("%s %s: %d %s: %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, e.Error.Code, strings.TrimSpace(e.Error.Message))
	switch {
	case res.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w: %s", errRevoked, msg)
	case res.StatusCode >= 400 && res.StatusCode < 500:
		return refused{res.StatusCode, msg}
	}
	return errors.New(msg)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
