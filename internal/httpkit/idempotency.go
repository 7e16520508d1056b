package httpkit

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// MaxIdempotencyKeyLength is the most characters an Idempotency-Key may have, in both APIs.
const MaxIdempotencyKeyLength = 255

// IdempotencyKey returns the Idempotency-Key of a create request (the generated parameter, nil
// when none was sent; "" then) once it is a key the service can keep: 1 to 255 characters of
// UTF-8 text without NUL, what the idempotency_keys table's text column holds. Anything else is
// 400 INVALID_REQUEST.
//
// The specs' validator has checked the length already, and the Parsing API's pattern the
// characters too (printable ASCII); but the Reconciliation API's spec asks only for 1 to 255
// characters, and the validator counts a byte that is not UTF-8 as a character, so without this
// check such a key reached the database, which refused it: 500 SERVER_ERROR.
//
// The key is returned exactly as sent, never normalised (no trimming, case folding or Unicode
// normalisation): two requests share a key only when they sent the same bytes.
func IdempotencyKey(sent *string) (string, error) {
	if sent == nil {
		return "", nil
	}
	key := *sent
	n := utf8.RuneCountInString(key)
	if n < 1 || n > MaxIdempotencyKeyLength || !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
		return "", &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest,
			Message: "Idempotency-Key: must be 1 to 255 characters of UTF-8 text; a UUID is a good choice."}
	}
	return key, nil
}
