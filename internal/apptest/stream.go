package apptest

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// Stream is an open server-sent event stream, read event by event.
type Stream struct {
	res *http.Response
	r   *bufio.Reader
}

// Event is one server-sent event.
type Event struct {
	Name string
	Data string
}

// Stream opens an event stream as this client; it closes when ctx ends.
func (c *Client) Stream(ctx context.Context, path string) *Stream {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.s.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		c.t.Fatalf("stream %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	context.AfterFunc(ctx, func() { res.Body.Close() })
	return &Stream{res: res, r: bufio.NewReader(res.Body)}
}

// Read returns the next event (comments such as pings are skipped).
func (s *Stream) Read() (Event, error) {
	var e Event
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return Event{}, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			e.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "" && e.Name != "":
			e.Data = strings.Join(data, "\n")
			return e, nil
		}
	}
}

// Next returns the data of the next event named name, passing over others.
func (s *Stream) Next(t testing.TB, name string) string {
	t.Helper()
	for {
		e, err := s.Read()
		if err != nil {
			t.Fatalf("stream ended before a %q event: %v", name, err)
		}
		if e.Name == name {
			return e.Data
		}
	}
}
