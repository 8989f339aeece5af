// Package apispec is the JSON API's OpenAPI 3.1 description: one
// hand-written document (openapi.json, embedded), served to clients at
// /api/v1/openapi.json, drawn as the reference page /docs/api-reference,
// and held to the server's real answers by the tests (every exchange of
// the tests' API client goes through a Validator).
//
// The document is the single source: what is here is what the API
// promises. kin-openapi loads and checks it, finds the operation of a
// request, and checks requests and the statuses and headers of answers.
// Bodies and stream lines are checked as JSON Schema 2020-12, the
// dialect of OpenAPI 3.1 (type arrays with "null", const, if/then), by
// the validator kin-openapi itself uses for 3.1, with each schema
// compiled once rather than at every call.
//
// It must not import the handlers or anything that serves: the handlers
// and the tests import it.
package apispec

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed openapi.json
var document []byte

// NDJSON is the content type of the API's streams: one JSON object a
// line. A stream's response schema describes one line.
const NDJSON = "application/x-ndjson"

// JSON is the document as served.
func JSON() []byte { return document }

var (
	loadOnce sync.Once
	doc      *openapi3.T
	loadErr  error
)

// Doc is the document, loaded and checked once. The document is part of
// the binary, so a document that does not load is a bug: Doc panics.
func Doc() *openapi3.T {
	d, err := load()
	if err != nil {
		panic(err)
	}
	return d
}

func load() (*openapi3.T, error) {
	loadOnce.Do(func() {
		l := openapi3.NewLoader()
		l.IsExternalRefsAllowed = false
		d, err := l.LoadFromData(document)
		if err != nil {
			loadErr = fmt.Errorf("apispec: load openapi.json: %w", err)
			return
		}
		if err := d.Validate(context.Background()); err != nil {
			loadErr = fmt.Errorf("apispec: openapi.json is not a valid document: %w", err)
			return
		}
		doc = d
	})
	return doc, loadErr
}

// Validator checks requests and their answers against the document.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	opts   *openapi3filter.Options
	bodies *schemas
	// requests remembers the requests found valid.
	requests seen
}

// NewValidator builds a validator of the document.
func NewValidator() (*Validator, error) {
	d, err := load()
	if err != nil {
		return nil, err
	}
	r, err := gorillamux.NewRouter(d)
	if err != nil {
		return nil, fmt.Errorf("apispec: router: %w", err)
	}
	b, err := newSchemas()
	if err != nil {
		return nil, err
	}
	return &Validator{doc: d, router: r, bodies: b, opts: &openapi3filter.Options{
		// An answer with a status the document does not list is wrong.
		IncludeResponseStatus: true,
		// Every reason, not the first: a renamed field is both an
		// unknown one and a missing one.
		MultiError: true,
		// The token is the server's to check: tests send bad ones on
		// purpose, and the 401 that follows must still be as described.
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		// Bodies are checked against schemas compiled once (schemas
		// below): kin-openapi compiles a 3.1 schema at every call.
		ExcludeResponseBody: true,
	}}, nil
}

// Validate checks one exchange: req (its body in reqBody) and the answer
// (status, header, body). A request the document refuses must be refused
// by the server too (4xx); an answer must be one the operation lists,
// with the body it describes. A path the document does not have must be
// answered 404 or 405 with an Error. A stream's body is checked line by
// line.
func (v *Validator) Validate(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	if req.Method == http.MethodHead {
		return nil
	}
	ctx := context.Background()
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(reqBody)), nil }
	r.ContentLength = int64(len(reqBody))
	route, params, err := v.router.FindRoute(r)
	if err != nil {
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return v.validateError(body)
		}
		return fmt.Errorf("not in the description (%v), yet answered %d", err, status)
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: v.opts}
	// Tests poll: the same request comes again and again, and is
	// checked once.
	key := sha256.Sum256([]byte(req.Method + " " + req.URL.RequestURI() + "\x00" + req.Header.Get("Content-Type") + "\x00" + string(reqBody)))
	if !v.requests.has(key) {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			if status < 400 {
				return fmt.Errorf("the request is not as described, yet answered %d: %s", status, Short(err))
			}
		} else {
			v.requests.add(key)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header, Options: v.opts}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("answer: %s", Short(err))
	}
	ptr, described := v.bodies.response(route, status, header.Get("Content-Type"))
	switch {
	case !described && len(body) > 0:
		return fmt.Errorf("answer: %d with a %q body the description does not have", status, header.Get("Content-Type"))
	case !described:
		return nil
	case ptr == "":
		return fmt.Errorf("answer: %d with content type %q, which the description does not give", status, header.Get("Content-Type"))
	}
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if ct == NDJSON {
		for i, line := range bytes.Split(bytes.TrimRight(body, "\n"), []byte("\n")) {
			if err := v.validateLine(route, line); err != nil {
				return fmt.Errorf("line %d: %w", i+1, err)
			}
		}
		return nil
	}
	if ct != "application/json" {
		// Plain text and files (a game's notation, a month's file): the
		// content type is the one described; the body is not JSON.
		return nil
	}
	if err := v.bodies.validate(ptr, body); err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	return nil
}

// validateError checks an answer against the Error schema.
func (v *Validator) validateError(body []byte) error {
	if err := v.bodies.validate("/components/schemas/Error", body); err != nil {
		return fmt.Errorf("an error answer that is not an Error: %w", err)
	}
	return nil
}

// ValidateLine checks one line of the stream at path (a request path,
// such as /api/v1/games/7/stream?version=3) against the schema of that
// stream's lines.
func ValidateLine(path string, line []byte) error {
	v, err := shared()
	if err != nil {
		return err
	}
	u, err := url.Parse(path)
	if err != nil {
		return fmt.Errorf("apispec: path %q: %w", path, err)
	}
	route, _, err := v.router.FindRoute(&http.Request{Method: http.MethodGet, URL: u, Host: u.Host})
	if err != nil {
		return fmt.Errorf("apispec: %s is not in the description: %w", path, err)
	}
	return v.validateLine(route, line)
}

func (v *Validator) validateLine(route *routers.Route, line []byte) error {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.ContainsAny(line, "\r\n") {
		return errors.New("a line holds a line break")
	}
	ok := route.Operation.Responses.Status(http.StatusOK)
	if ok == nil || ok.Value == nil || ok.Value.Content.Get(NDJSON) == nil {
		return fmt.Errorf("%s %s is not a stream", route.Method, route.Path)
	}
	ptr, _ := v.bodies.response(route, http.StatusOK, NDJSON)
	// A line's type says which of the stream's lines it is: checked
	// against that one alone, its errors are its own.
	if d := ok.Value.Content.Get(NDJSON).Schema.Value.Discriminator; d != nil {
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			return fmt.Errorf("not a JSON object: %q", trim(line, 300))
		}
		typ, _ := obj[d.PropertyName].(string)
		ref, found := d.Mapping[typ]
		if !found {
			return fmt.Errorf("%q: not a line of this stream (%s %q)", trim(line, 300), d.PropertyName, typ)
		}
		ptr = strings.TrimPrefix(ref.Ref, "#")
	}
	if err := v.bodies.validate(ptr, line); err != nil {
		return fmt.Errorf("%q: %w", trim(line, 300), err)
	}
	return nil
}

var (
	sharedOnce sync.Once
	sharedV    *Validator
	sharedErr  error
)

// shared is one validator for ValidateLine.
func shared() (*Validator, error) {
	sharedOnce.Do(func() { sharedV, sharedErr = NewValidator() })
	return sharedV, sharedErr
}

// Short is a validation error without the schema and the value that
// kin-openapi adds (they can run to pages): where, and why, down to the
// innermost reasons (those of a oneOf's branches too).
func Short(err error) string {
	var msgs []string
	var walk func(err error, at string)
	walk = func(err error, at string) {
		var me openapi3.MultiError
		if errors.As(err, &me) {
			for _, e := range me {
				walk(e, at)
			}
			return
		}
		var se *openapi3.SchemaError
		if !errors.As(err, &se) {
			msgs = append(msgs, err.Error())
			return
		}
		where := "/" + strings.Join(se.JSONPointer(), "/")
		if at != "" && !strings.HasPrefix(where, at) {
			where = strings.TrimSuffix(at, "/") + where
		}
		var inner *openapi3.SchemaError
		if se.Origin != nil && errors.As(se.Origin, &inner) {
			walk(se.Origin, where)
			return
		}
		msgs = append(msgs, fmt.Sprintf("at %s: %s", where, locations.ReplaceAllString(se.Reason, "")))
	}
	var re *openapi3filter.RequestError
	var rse *openapi3filter.ResponseError
	reason, cause := "", err
	switch {
	case errors.As(err, &re):
		reason, cause = re.Reason, re.Err
		if re.Parameter != nil {
			reason = strings.TrimSuffix("parameter "+re.Parameter.Name+": "+reason, ": ")
		}
	case errors.As(err, &rse):
		reason, cause = rse.Reason, rse.Err
	}
	if cause != nil {
		walk(cause, "")
	}
	if len(msgs) > maxReasons {
		msgs = append(msgs[:maxReasons], fmt.Sprintf("and %d more", len(msgs)-maxReasons))
	}
	switch {
	case len(msgs) == 0:
		return reason
	case reason == "":
		return strings.Join(msgs, "; ")
	}
	return reason + ": " + strings.Join(msgs, "; ")
}

// locations are the places the JSON Schema 2020-12 validator writes into
// its reasons, which Short says once, before the reason.
var locations = regexp.MustCompile(`(error at "[^"]*": )|(at '[^']*': )`)

// maxReasons bounds the reasons Short lists.
const maxReasons = 6

func trim(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
