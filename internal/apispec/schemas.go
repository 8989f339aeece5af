package apispec

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL names the document for the JSON Schema compiler, so that the
// schemas' "#/components/schemas/..." references resolve in it.
const docURL = "https://nothanks.invalid/api/v1/openapi.json"

// schemas checks JSON bodies against the document's schemas as JSON
// Schema 2020-12 (the dialect of OpenAPI 3.1), each compiled once, the
// first time it is needed.
type schemas struct {
	raw map[string]any

	mu       sync.Mutex
	c        *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	// responses caches response's answers.
	responses map[string]responseSchema
	// valid remembers the bodies found valid, by schema and content.
	valid seen
}

// responseSchema is where an answer's schema is (see response).
type responseSchema struct {
	ptr       string
	described bool
}

func newSchemas() (*schemas, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(document))
	if err != nil {
		return nil, fmt.Errorf("apispec: read openapi.json: %w", err)
	}
	raw, _ := v.(map[string]any)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, v); err != nil {
		return nil, fmt.Errorf("apispec: openapi.json as a schema resource: %w", err)
	}
	return &schemas{raw: raw, c: c, compiled: map[string]*jsonschema.Schema{}, responses: map[string]responseSchema{}}, nil
}

// schema compiles the schema at ptr (a JSON pointer into the document).
func (s *schemas) schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[ptr]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("apispec: compile %s: %w", ptr, err)
	}
	s.compiled[ptr] = sch
	return sch, nil
}

// validate checks a JSON body against the schema at ptr.
func (s *schemas) validate(ptr string, body []byte) error {
	// Tests poll: the same answer comes again and again, and is checked
	// once.
	key := sha256.Sum256(append([]byte(ptr+"\x00"), body...))
	if s.valid.has(key) {
		return nil
	}
	sch, err := s.schema(ptr)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return errors.New(reasons(ve))
	}
	if err != nil {
		return err
	}
	s.valid.add(key)
	return nil
}

// seen is a bounded set of hashes of what was found valid.
type seen struct {
	mu  sync.Mutex
	set map[[32]byte]struct{}
}

// maxSeen bounds a seen set: past it, it starts again empty.
const maxSeen = 1 << 14

func (s *seen) has(k [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.set[k]
	return ok
}

func (s *seen) add(k [32]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil || len(s.set) >= maxSeen {
		s.set = map[[32]byte]struct{}{}
	}
	s.set[k] = struct{}{}
}

// reasons lists a validation error's innermost reasons, where each is.
func reasons(ve *jsonschema.ValidationError) string {
	var msgs []string
	var leaves func(u jsonschema.OutputUnit)
	leaves = func(u jsonschema.OutputUnit) {
		if len(u.Errors) > 0 {
			for _, e := range u.Errors {
				leaves(e)
			}
			return
		}
		if u.Error != nil {
			at := u.InstanceLocation
			if at == "" {
				at = "/"
			}
			msgs = append(msgs, fmt.Sprintf("at %s: %s", at, u.Error.String()))
		}
	}
	leaves(*ve.DetailedOutput())
	if len(msgs) > maxReasons {
		msgs = append(msgs[:maxReasons], fmt.Sprintf("and %d more", len(msgs)-maxReasons))
	}
	return strings.Join(msgs, "; ")
}

// response finds the schema of an operation's answer: its JSON pointer
// in the document, "" when the status has no content of that type, and
// false when the status has no content at all.
func (s *schemas) response(route *routers.Route, status int, contentType string) (string, bool) {
	key := fmt.Sprint(route.Method, " ", route.Path, " ", status, " ", contentType)
	s.mu.Lock()
	found, ok := s.responses[key]
	s.mu.Unlock()
	if !ok {
		found.ptr, found.described = s.findResponse(route, status, contentType)
		s.mu.Lock()
		s.responses[key] = found
		s.mu.Unlock()
	}
	return found.ptr, found.described
}

func (s *schemas) findResponse(route *routers.Route, status int, contentType string) (string, bool) {
	op := []string{"paths", route.Path, strings.ToLower(route.Method), "responses"}
	res, ptr := s.follow(append(op, strconv.Itoa(status)))
	if res == nil {
		res, ptr = s.follow(append(op, "default"))
	}
	content, _ := res["content"].(map[string]any)
	if len(content) == 0 {
		return "", false
	}
	ct, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", true
	}
	if _, ok := content[ct]; !ok {
		return "", true
	}
	return ptr + "/content/" + escape(ct) + "/schema", true
}

// follow walks the document along keys, through "$ref"s, to an object,
// and returns it with its pointer.
func (s *schemas) follow(keys []string) (map[string]any, string) {
	node, ptr := s.raw, ""
	for _, k := range keys {
		next, ok := node[k].(map[string]any)
		if !ok {
			return nil, ""
		}
		node, ptr = next, ptr+"/"+escape(k)
		for {
			ref, ok := node["$ref"].(string)
			if !ok || !strings.HasPrefix(ref, "#/") {
				break
			}
			target := s.at(strings.TrimPrefix(ref, "#"))
			if target == nil {
				return nil, ""
			}
			node, ptr = target, strings.TrimPrefix(ref, "#")
		}
	}
	return node, ptr
}

// at is the object at a JSON pointer.
func (s *schemas) at(ptr string) map[string]any {
	node := s.raw
	for _, k := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		k = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
		next, ok := node[k].(map[string]any)
		if !ok {
			return nil
		}
		node = next
	}
	return node
}

func escape(k string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(k) }
