package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"nothanks/internal/clock"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
)

// serve runs the server as main does, on a free port of a fresh database,
// with vars added to its environment, and returns its base URL and the
// id of an open game (to hold an event stream on).
func serve(t *testing.T, vars map[string]string) (string, int64) {
	t.Helper()
	store, dbURL := dbtest.NewWithURL(t)
	u, err := store.CreateUser(context.Background(), "Host", "host@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	gameID, err := games.New(store, clock.Real{}, slog.Default()).Create(context.Background(), u.ID, games.DefaultCreateInput())
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"DATABASE_URL": dbURL, "ADDR": "127.0.0.1:0"}
	for k, v := range vars {
		all[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, env(all), pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`open (http://\S+)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base, gameID
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	return "", 0
}

func TestTrickledBodyIsCut(t *testing.T) {
	base, _ := serve(t, map[string]string{"BODY_TIMEOUT": "1s"})
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n", u.Host)
	answered := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(conn).ReadString('\n')
		answered <- line
	}()
	// One byte every 200 ms would take 200 s; the server must cut it off
	// after about a second (BODY_TIMEOUT), well within 15.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	bound := time.After(15 * time.Second)
	for {
		select {
		case line := <-answered:
			t.Logf("answer: %q", line)
			if line != "" && !strings.HasPrefix(line, "HTTP/1.1 408") {
				t.Errorf("a trickled body was answered %q, want 408 or a closed connection", line)
			}
			return
		case <-bound:
			t.Fatal("a body trickled a byte every 200 ms was still being read after 15 s (BODY_TIMEOUT is 1 s)")
		case <-tick.C:
			// A write may fail once the server has closed: the read says how.
			_, _ = conn.Write([]byte("a"))
		}
	}
}

func TestEventStreamOutlivesBodyTimeout(t *testing.T) {
	base, gameID := serve(t, map[string]string{"BODY_TIMEOUT": "1s"})
	// A kept-alive connection first carries a request with a body, then
	// the stream: the body's deadline must not carry over.
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Post(base+"/login", "application/x-www-form-urlencoded", strings.NewReader("login=a&password=b"))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	stream, err := client.Get(fmt.Sprintf("%s/games/%d/events", base, gameID))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	r := bufio.NewReader(stream.Body)
	if first, _ := r.ReadString('\n'); !strings.HasPrefix(first, "event: board") {
		t.Fatalf("stream began with %q", first)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, r)
		ended <- err
	}()
	select {
	case err := <-ended:
		t.Fatalf("the event stream ended within 3 s (BODY_TIMEOUT is 1 s): %v", err)
	case <-time.After(3 * time.Second):
	}
}

func TestConnectionsPerIPAreCapped(t *testing.T) {
	base, _ := serve(t, map[string]string{"MAX_CONNS_PER_IP": "2"})
	u, _ := url.Parse(base)
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for range 2 {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	third, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, _ := bufio.NewReader(third).ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 503") {
		t.Errorf("a third connection from one address: %q, want 503", line)
	}
	// A place frees when a connection closes.
	open[0].Close()
	open = open[1:]
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			res.Body.Close()
		}
		if err == nil && res.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place after a connection closed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
