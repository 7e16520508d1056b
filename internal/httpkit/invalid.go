package httpkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// describeInvalid says in words what part of a request breaks the spec and which rule, from an
// error of kin-openapi's request validation: `the field "client_id": value must be a string`.
// kin-openapi's own texts name schemas by their JSON pointers and pass Go's errors through
// (`strconv.ParseFloat: ...`, `multipart: boundary is empty`); none of that reaches a client.
// ok is false for an error that is not a validation error.
func describeInvalid(err error) (msg string, ok bool) {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		err = me[0]
	}
	var re *openapi3filter.RequestError
	var tooLarge *http.MaxBytesError
	if !errors.As(err, &re) || errors.As(err, &tooLarge) {
		return "", false // a body over its limit is 413, whatever the validator made of it
	}
	where := "the body"
	if p := re.Parameter; p != nil {
		where = fmt.Sprintf("the %s parameter %q", p.In, p.Name)
	}
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		if re.Parameter == nil {
			if path := se.JSONPointer(); len(path) > 0 {
				where = fmt.Sprintf("the field %q", strings.Join(path, "."))
			}
		}
		return where + ": " + schemaRule(se), true
	}
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) || errors.As(err, &pe) {
		return where + ": " + parseProblem(pe, re.Parameter == nil), true
	}
	switch {
	case re.Err != nil && strings.Contains(re.Err.Error(), "boundary"):
		return where + ": a multipart body needs a boundary parameter in its Content-Type", true
	case re.Err == nil && re.Reason != "":
		return where + ": " + re.Reason, true
	case re.Parameter == nil:
		return where + " could not be read as its content type says", true
	}
	return where + " is not valid", true
}

// formatRules are the rules of the spec's string formats, in words.
var formatRules = map[string]string{
	"date-time": "must be a date and time such as 2026-03-04T10:15:00Z",
	"date":      "must be a date such as 2026-03-04",
	"uuid":      "must be a UUID such as 3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f",
	"uri":       "must be an absolute URL",
	"email":     "must be an e-mail address",
}

// schemaRule is the rule a value broke. kin-openapi's reasons ("value must be a string",
// `property "url" is missing`) are plain; a format's or a number's failure carries a Go error,
// which is said in words instead.
func schemaRule(se *openapi3.SchemaError) string {
	var num *strconv.NumError
	switch {
	case errors.As(se.Origin, &num) || strings.Contains(se.Reason, "strconv."):
		if errors.Is(num, strconv.ErrRange) || strings.Contains(se.Reason, "out of range") {
			return "the number is out of range"
		}
		return "must be a number"
	case se.SchemaField == "format":
		format := ""
		if se.Schema != nil {
			format = se.Schema.Format
		}
		if rule, ok := formatRules[format]; ok {
			return rule
		}
		return fmt.Sprintf("must be in the format %q", format)
	case se.SchemaField == "pattern":
		return "does not have the form this field takes"
	}
	return se.Reason
}

// parseProblem says why a body or parameter could not be read at all.
func parseProblem(pe *openapi3filter.ParseError, body bool) string {
	var syntax *json.SyntaxError
	var num *strconv.NumError
	cause := pe.Cause
	text := pe.Error()
	switch {
	case strings.Contains(text, "boundary"):
		return "a multipart body needs a boundary parameter in its Content-Type"
	case errors.As(cause, &num):
		if errors.Is(num, strconv.ErrRange) {
			return "a number is out of range"
		}
		return "must be a number"
	case !body:
		return "is not a valid value"
	case errors.As(cause, &syntax) || errors.Is(cause, io.ErrUnexpectedEOF) || errors.Is(cause, io.EOF) ||
		strings.Contains(text, "more data after the JSON value") || strings.Contains(text, "invalid character"):
		return "is not valid JSON"
	case pe.Kind == openapi3filter.KindUnsupportedFormat:
		return "has a content type this operation does not take"
	}
	return "could not be read as its content type says"
}
