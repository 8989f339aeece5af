package handlers

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
)

// apiBind reads an API request's JSON body into v (an empty body leaves v
// as it is: the defaults). A field v does not have (a typo: "seat" for
// "seats") or a value of the wrong type is answered 422 naming the field,
// so that a program learns which of its fields is wrong rather than
// having it ignored; a body that is not JSON at all gets otherwise, a
// sentence saying what to send.
func apiBind(c echo.Context, v any, otherwise string) error {
	return decodeBody(c, v, otherwise, bodyRules{})
}

// bodyRules change apiBind for a body without which there is nothing to
// do (required): a push subscription, a device's new name.
type bodyRules struct{ required bool }

// decodeBody is apiBind under rules.
func decodeBody(c echo.Context, v any, otherwise string, rules bodyRules) error {
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // too large: the body limit's 413
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 && !rules.required {
		return nil
	}
	// One JSON object and nothing after it: null, a second object or
	// trailing words are not a body a program meant to send. Read by
	// encoding/json's successor, which also refuses a name given twice
	// ({"seats": 3, "seats": 5}) and matches names exactly ("Seats" is
	// not "seats"), where encoding/json takes the last and any case.
	if len(raw) == 0 || raw[0] != '{' {
		return &apperr.Error{Code: apperr.Invalid, Message: otherwise, Format: otherwise}
	}
	return bindError(jsonv2.Unmarshal(raw, v, jsonv2.RejectUnknownMembers(true)), otherwise)
}

// bindError is how decodeBody answers an error reading a body (nil for
// nil): the field at fault when there is one, else otherwise.
func bindError(err error, otherwise string) error {
	if err == nil {
		return nil
	}
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && se.JSONPointer != "" {
		field := pointerPath(se.JSONPointer)
		if errors.Is(se.Err, jsonv2.ErrUnknownName) {
			return apperr.FieldErrors{field: i18n.M("There is no such field here: see the API reference (/docs/api-reference).")}.Err()
		}
		if se.GoType != nil {
			return apperr.FieldErrors{field: takes(se.GoType)}.Err()
		}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName) {
		return apperr.FieldErrors{pointerPath(syn.JSONPointer): i18n.M("This field is given twice: send it once.")}.Err()
	}
	return &apperr.Error{Code: apperr.Invalid, Message: otherwise, Format: otherwise}
}

// pointerPath is a JSON Pointer (/keys/p256dh) as the API names a field
// (keys.p256dh).
func pointerPath(p jsontext.Pointer) string {
	var path []string
	for tok := range p.Tokens() {
		path = append(path, tok)
	}
	return strings.Join(path, ".")
}

// takes says what a field of type t takes, for a program that sent
// something else.
func takes(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return i18n.M("This field takes true or false.")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return i18n.M("This field takes a whole number.")
	case reflect.Float32, reflect.Float64:
		return i18n.M("This field takes a number.")
	case reflect.String:
		return i18n.M("This field takes text, in quotes.")
	case reflect.Slice, reflect.Array:
		return i18n.M("This field takes a list, in brackets.")
	}
	return i18n.M("This field takes an object, in braces.")
}

// apiQuery refuses, for every API request, a value of a query parameter
// the API reads that it cannot take (?log=ful, ?page=two, ?round=0),
// naming the parameter, rather than answering as if it had not been
// given. Parameters no API address reads are left alone.
func apiQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		f := apperr.FieldErrors{}
		q := c.QueryParams()
		if v, ok := q["log"]; ok && (len(v) != 1 || v[0] != "full") {
			f.Add("log", i18n.M("The log is log=full, or left out for the recent events."))
		}
		for _, name := range []string{"page", "round"} {
			if v, ok := q[name]; ok {
				if n, err := strconv.Atoi(v[0]); err != nil || n < 1 || len(v) != 1 {
					f.Add(name, i18n.M("This parameter takes a whole number from 1."))
				}
			}
		}
		if err := f.Err(); err != nil {
			return err
		}
		return next(c)
	}
}
