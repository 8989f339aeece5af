package apptest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"nothanks/internal/apispec"
)

// Lines is an open stream of the JSON API (one JSON object a line), read
// line by line.
type Lines struct {
	t    testing.TB
	res  *http.Response
	r    *bufio.Reader
	Path string
}

// OpenStream opens an API stream with the client's token. It answers the
// status, and the lines when it is 200 (else the answer's body); the
// stream closes when ctx ends or with Close.
func (a *API) OpenStream(ctx context.Context, path string) (*Lines, int, []byte) {
	a.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.s.URL+path, nil)
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	// A client of its own: a stream holds its connection.
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return nil, res.StatusCode, body
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		res.Body.Close()
		a.t.Fatalf("stream %s: content type %q", path, ct)
	}
	context.AfterFunc(ctx, func() { res.Body.Close() })
	return &Lines{t: a.t, res: res, r: bufio.NewReader(res.Body), Path: path}, res.StatusCode, nil
}

// Stream opens an API stream that must open.
func (a *API) Stream(ctx context.Context, path string) *Lines {
	a.t.Helper()
	l, status, body := a.OpenStream(ctx, path)
	if l == nil {
		a.t.Fatalf("stream %s: %d %s", path, status, body)
	}
	return l
}

// Read returns the next line, decoded, and its bytes.
func (l *Lines) Read() (map[string]any, []byte, error) {
	raw, err := l.r.ReadBytes('\n')
	if err != nil {
		return nil, raw, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		l.t.Errorf("stream %s: a line that is not a JSON object: %q", l.Path, raw)
	}
	// Every line as the API's description says it (docs/api.md).
	if err := apispec.ValidateLine(l.Path, raw); err != nil {
		l.t.Errorf("stream %s: a line not as internal/apispec/openapi.json says: %v", l.Path, err)
	}
	return m, raw, nil
}

// Next returns the next line of a type, passing over others (pings).
func (l *Lines) Next(typ string) map[string]any {
	l.t.Helper()
	for {
		m, raw, err := l.Read()
		if err != nil {
			l.t.Fatalf("stream %s ended before a %q line: %v (%q)", l.Path, typ, err, raw)
		}
		if m["type"] == typ {
			return m
		}
	}
}

// Close ends the stream.
func (l *Lines) Close() { l.res.Body.Close() }

// Header is the stream's answer's header.
func (l *Lines) Header() http.Header { return l.res.Header }
