package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"nothanks/internal/apispec"
	"nothanks/internal/views"
)

// The API's OpenAPI description (internal/apispec): the document itself
// for programs, and a reference page for people drawn from it.

// apiSpecETag is the served document's version: it changes only with a
// new build.
var apiSpecETag = func() string {
	sum := sha256.Sum256(apispec.JSON())
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}()

// openAPIDoc serves the description, public: clients cache it and ask
// again with If-None-Match.
func (s *Server) openAPIDoc(c echo.Context) error {
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "public, no-cache")
	h.Set("ETag", apiSpecETag)
	if etagMatches(c.Request().Header.Get("If-None-Match"), apiSpecETag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, apispec.JSON())
}

// etagMatches reports whether an If-None-Match header names etag (or
// "*"), weak or strong: compression may have weakened it on the way.
func etagMatches(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// apiReferenceView is the reference page's model, drawn once from the
// description.
var apiReferenceView = sync.OnceValue(func() views.APIReference { return apiReference(apispec.Doc()) })

// apiReferencePage renders the description for people.
func (s *Server) apiReferencePage(c echo.Context) error {
	return render(c, http.StatusOK, views.APIReferencePage(s.page(c, tr(c, "API reference")), apiReferenceView()))
}

// apiReference draws the reference's view model from the document: its
// operations grouped by their first tag, in the tags' order, and its
// named schemas.
func apiReference(doc *openapi3.T) views.APIReference {
	r := views.APIReference{Title: doc.Info.Title, Version: doc.Info.Version, Description: doc.Info.Description}
	groups := map[string]*views.APIGroup{}
	var order []string
	for _, t := range doc.Tags {
		groups[t.Name] = &views.APIGroup{Name: t.Name, Description: t.Description}
		order = append(order, t.Name)
	}
	paths := doc.Paths.Map()
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item := paths[path]
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			g := groups[tag]
			if g == nil {
				g = &views.APIGroup{Name: tag}
				groups[tag] = g
				order = append(order, tag)
			}
			g.Operations = append(g.Operations, apiOperation(doc, path, method, item, op))
		}
	}
	for _, name := range order {
		if g := groups[name]; len(g.Operations) > 0 {
			r.Groups = append(r.Groups, *g)
		}
	}
	schemas := doc.Components.Schemas
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		sc := schemas[name].Value
		v := views.APISchema{Name: name, Anchor: schemaAnchor(name), Description: sc.Description, Fields: apiFields(sc)}
		if len(v.Fields) == 0 {
			v.Type = apiTypeOf(&openapi3.SchemaRef{Value: sc})
		}
		r.Schemas = append(r.Schemas, v)
	}
	return r
}

func apiOperation(doc *openapi3.T, path, method string, item *openapi3.PathItem, op *openapi3.Operation) views.APIOperation {
	v := views.APIOperation{
		Anchor: "op-" + op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: op.Description,
		Public: op.Security != nil && len(*op.Security) == 0,
	}
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		if p.Value == nil {
			continue
		}
		v.Params = append(v.Params, views.APIField{Name: p.Value.Name, In: p.Value.In, Required: p.Value.Required, Description: p.Value.Description, Type: apiTypeOf(p.Value.Schema)})
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		rb := op.RequestBody.Value
		for ct, mt := range rb.Content {
			v.Body = &views.APIBody{ContentType: ct, Required: rb.Required, Shape: apiShape(mt.Schema)}
		}
	}
	codes := op.Responses.Map()
	for _, code := range slices.SortedFunc(maps.Keys(codes), func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y }) {
		res := codes[code].Value
		rv := views.APIResponse{Status: code}
		if res.Description != nil {
			rv.Description = *res.Description
		}
		for ct, mt := range res.Content {
			rv.ContentType, rv.Shape = ct, apiShape(mt.Schema)
		}
		v.Responses = append(v.Responses, rv)
	}
	return v
}

// apiShape is a body's schema: a link to a named one, or an object's
// fields.
func apiShape(ref *openapi3.SchemaRef) views.APIShape {
	if ref == nil {
		return views.APIShape{}
	}
	if ref.Ref == "" && ref.Value != nil {
		if fs := apiFields(ref.Value); len(fs) > 0 {
			return views.APIShape{Fields: fs}
		}
	}
	return views.APIShape{Type: apiTypeOf(ref)}
}

// apiFields lists an object's properties: the required ones first, in the
// order the document requires them (the order of the server's structs),
// then the others by name.
func apiFields(s *openapi3.Schema) []views.APIField {
	var out []views.APIField
	field := func(name string, required bool) {
		p := s.Properties[name]
		f := views.APIField{Name: name, Required: required, Type: apiTypeOf(p)}
		if p != nil && p.Value != nil {
			f.Description = p.Value.Description
		}
		out = append(out, f)
	}
	for _, name := range s.Required {
		if s.Properties[name] != nil {
			field(name, true)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(s.Required, name) {
			field(name, false)
		}
	}
	return out
}

// apiTypeOf puts a schema's type in words: "integer or null", "array of
// Event", the values of an enum; a named schema links to its entry.
func apiTypeOf(ref *openapi3.SchemaRef) []views.APIType {
	if ref == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(ref.Ref, "#/components/schemas/"); ok {
		return []views.APIType{{Text: name, Anchor: schemaAnchor(name)}}
	}
	s := ref.Value
	if s == nil {
		return nil
	}
	text := func(t string) views.APIType { return views.APIType{Text: t} }
	if s.Const != nil {
		b, _ := json.Marshal(s.Const)
		return []views.APIType{text(string(b))}
	}
	if xs := append(slices.Clone(s.OneOf), s.AnyOf...); len(xs) > 0 {
		var out []views.APIType
		if len(xs) > 2 {
			out = append(out, text("one of: "))
		}
		for i, x := range xs {
			if i > 0 {
				if len(xs) > 2 {
					out = append(out, text(", "))
				} else {
					out = append(out, text(" or "))
				}
			}
			out = append(out, apiTypeOf(x)...)
		}
		return out
	}
	var out []views.APIType
	var types []string
	if s.Type != nil {
		types = *s.Type
	}
	for i, t := range types {
		if i > 0 {
			out = append(out, text(" or "))
		}
		switch t {
		case "array":
			out = append(out, text("array of "))
			out = append(out, apiTypeOf(s.Items)...)
		case "object":
			if ap := s.AdditionalProperties.Schema; ap != nil {
				out = append(out, text("object of "))
				out = append(out, apiTypeOf(ap)...)
			} else {
				out = append(out, text("object"))
			}
		default:
			w := t
			if s.Format != "" && s.Format != "int64" {
				w += " (" + s.Format + ")"
			}
			out = append(out, text(w))
		}
	}
	if b := bounds(s); b != "" && len(out) > 0 {
		out = append(out, text(b))
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			b, _ := json.Marshal(e)
			vals[i] = string(b)
		}
		if len(out) > 0 {
			out = append(out, text(": "))
		}
		out = append(out, text(strings.Join(vals, ", ")))
	}
	return out
}

// bounds says a number's range: " 3 to 7", " ≥ 0".
func bounds(s *openapi3.Schema) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf(", %s to %s", num(*s.Min), num(*s.Max))
	case s.Min != nil:
		return ", ≥ " + num(*s.Min)
	case s.Max != nil:
		return ", ≤ " + num(*s.Max)
	}
	return ""
}

func schemaAnchor(name string) string { return "schema-" + name }
