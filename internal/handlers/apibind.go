package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"

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
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return nil
	}
	return bindError(err, otherwise)
}

// bindError is how apiBind answers an error reading a body (nil for nil).
func bindError(err error, otherwise string) error {
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return apperr.FieldErrors{fieldPath(te.Field): takes(te.Type)}.Err()
	}
	// encoding/json says so in words only: json: unknown field "seat".
	if rest, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(rest); err == nil {
			return apperr.FieldErrors{name: i18n.M("There is no such field here: see the API reference (/docs/api-reference).")}.Err()
		}
	}
	return &apperr.Error{Code: apperr.Invalid, Message: otherwise, Format: otherwise}
}

// fieldPath is a JSON field's path as the API names it: encoding/json
// names embedded structs by their Go names ("CreateInput.seats"), and the
// API's names are all lower case.
func fieldPath(field string) string {
	var path []string
	for _, p := range strings.Split(field, ".") {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			path = append(path, p)
		}
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
