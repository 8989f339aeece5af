package apispec

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/routers"
)

// TestEverySchemaCompiles compiles every schema of the document as JSON
// Schema 2020-12, as the validator does lazily, and finds the schema of
// every answer the document describes.
func TestEverySchemaCompiles(t *testing.T) {
	s, err := newSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for name := range Doc().Components.Schemas {
		if _, err := s.schema("/components/schemas/" + escape(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for path, item := range Doc().Paths.Map() {
		for method, op := range item.Operations() {
			route := &routers.Route{Path: path, Method: method, Operation: op}
			for code, res := range op.Responses.Map() {
				status, err := strconv.Atoi(code)
				if err != nil {
					t.Errorf("%s %s: response %q is not a status", method, path, code)
					continue
				}
				for ct := range res.Value.Content {
					ptr, described := s.response(route, status, ct+"; charset=UTF-8")
					if !described || ptr == "" {
						t.Errorf("%s %s %d %s: no schema found", method, path, status, ct)
						continue
					}
					if _, err := s.schema(ptr); err != nil {
						t.Errorf("%s %s %d: %v", method, path, status, err)
					}
				}
				if len(res.Value.Content) == 0 && status != http.StatusNoContent && status != http.StatusNotModified {
					t.Errorf("%s %s %d: an answer without a body", method, path, status)
				}
			}
		}
	}
}
