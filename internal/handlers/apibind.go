package handlers

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
)

// apiBind reads an API request's JSON body into v. A value of the wrong
// type is answered 422 naming its field and what the field takes (a
// program learns which of its fields is wrong); a body that is not JSON
// at all gets otherwise, a sentence saying what to send.
func apiBind(c echo.Context, v any, otherwise string) error {
	return bindError(c.Bind(v), otherwise)
}

// bindError is how apiBind answers an error reading a body (nil for nil).
func bindError(err error, otherwise string) error {
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// The path names embedded structs by their Go names
		// ("CreateInput.seats"); the API's names are all lower case.
		var path []string
		for _, p := range strings.Split(te.Field, ".") {
			if p != "" && !unicode.IsUpper(rune(p[0])) {
				path = append(path, p)
			}
		}
		return apperr.FieldErrors{strings.Join(path, "."): takes(te.Type)}.Err()
	}
	return &apperr.Error{Code: apperr.Invalid, Message: otherwise, Format: otherwise}
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
