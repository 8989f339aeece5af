// Package outside seats a bot that runs as a separate process at the
// project's tables, so the project's bots can be measured against bots
// written elsewhere (in any language) without bringing their code into this
// repository.
//
// The protocol (nothanks-bot/1, documented in docs/bots.md) is one JSON
// request per decision on the process's stdin and one JSON answer per line
// on its stdout. The request holds the deciding seat's View and every seat's
// token count as a player with a perfect memory knows it (bot.Tokens); it
// never holds anything that seat could not see.
//
// Like the bot package it imports the standard library, the engine and the
// bot package only.
package outside

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sync"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// Protocol names the version of the exchange; it is sent with every request.
const Protocol = "nothanks-bot/1"

// Request is what the outside process reads: one per line, one per decision.
type Request struct {
	Protocol string `json:"protocol"`
	// Game names the game for the life of the process, so that a bot that
	// keeps its own memory can tell games apart ("" when the caller does
	// not name games). A seat's requests within a game come in play order.
	Game string `json:"game"`
	// Seat is the seat to decide, the view's viewer.
	Seat int `json:"seat"`
	// Tokens is every seat's token count in the round in play, as a
	// player with a perfect memory counts them from the public log.
	Tokens []int `json:"tokens"`
	// View is the seat's view, exactly as the site's JSON API gives it.
	View engine.View `json:"view"`
}

// Response is the outside process's answer: one of the view's legal actions.
type Response struct {
	Action engine.ActionKind `json:"action"`
}

// NewRequest builds the request for the seat whose view v is.
func NewRequest(game string, v engine.View) Request {
	return Request{Protocol: Protocol, Game: game, Seat: v.Viewer, Tokens: bot.Tokens(v), View: v}
}

// Client speaks the protocol over a pair of streams. It is safe for
// concurrent use; requests are answered one at a time in order.
type Client struct {
	mu  sync.Mutex
	w   *bufio.Writer
	r   *bufio.Reader
	err error
}

// NewClient speaks the protocol: requests go to w, answers come from r.
func NewClient(r io.Reader, w io.Writer) *Client {
	return &Client{w: bufio.NewWriter(w), r: bufio.NewReaderSize(r, 1<<16)}
}

// Ask sends one request and returns the answer, which must be a legal action
// of the request's view. After the first error every call fails with it.
func (c *Client) Ask(req Request) (engine.ActionKind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return "", c.err
	}
	kind, err := c.ask(req)
	if err != nil {
		c.err = fmt.Errorf("outside bot, game %q seat %d: %w", req.Game, req.Seat, err)
	}
	return kind, c.err
}

func (c *Client) ask(req Request) (engine.ActionKind, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	if _, err := c.w.Write(append(line, '\n')); err != nil {
		return "", err
	}
	if err := c.w.Flush(); err != nil {
		return "", err
	}
	answer, err := c.r.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the process closed its output without answering")
		}
		return "", err
	}
	var resp Response
	if err := json.Unmarshal(answer, &resp); err != nil {
		return "", fmt.Errorf("answer %q: %w", answer, err)
	}
	if !slices.Contains(req.View.Legal, resp.Action) {
		return "", fmt.Errorf("answered %q, legal are %v", resp.Action, req.View.Legal)
	}
	return resp.Action, nil
}

// Err is the first error the client met, if any.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Decide asks for a decision without naming the game. On error it returns
// "", which no game accepts, so the caller's Apply fails; Err says why.
func (c *Client) Decide(v engine.View, _ *rand.Rand) engine.ActionKind {
	kind, _ := c.Ask(NewRequest("", v))
	return kind
}

// ForGame returns the client as a bot that names game id in its requests.
// bot.Tournament calls it once per game.
func (c *Client) ForGame(id string) bot.Bot { return gameBot{c, id} }

type gameBot struct {
	c  *Client
	id string
}

func (b gameBot) Decide(v engine.View, _ *rand.Rand) engine.ActionKind {
	kind, _ := b.c.Ask(NewRequest(b.id, v))
	return kind
}

// Process is an outside bot running as a child process.
type Process struct {
	*Client
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// Start runs command with /bin/sh -c (so it may hold arguments and quoted
// paths) and talks to it on its stdin and stdout; its stderr goes to ours.
func Start(command string) (*Process, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("outside bot %q: %w", command, err)
	}
	return &Process{Client: NewClient(stdout, stdin), cmd: cmd, stdin: stdin}, nil
}

// Close closes the process's stdin, which tells it to exit, and waits for it.
func (p *Process) Close() error {
	p.stdin.Close()
	return p.cmd.Wait()
}

// Serve is the other side of the protocol: it answers every request read
// from r with b's decision on its view, written to w, until r ends. It lets
// a bot written in Go run as an outside process (and the tests use it).
func Serve(r io.Reader, w io.Writer, b bot.Bot, rng *rand.Rand) error {
	in := bufio.NewReaderSize(r, 1<<16)
	out := bufio.NewWriter(w)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("outside: request %q: %w", line, err)
		}
		if req.Protocol != Protocol {
			return fmt.Errorf("outside: protocol %q, want %q", req.Protocol, Protocol)
		}
		resp, err := json.Marshal(Response{Action: b.Decide(req.View, rng)})
		if err != nil {
			return err
		}
		if _, err := out.Write(append(resp, '\n')); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}
