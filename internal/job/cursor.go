package job

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrBadCursor: a pagination cursor is malformed or belongs to another list.
var ErrBadCursor = errors.New("invalid cursor")

// Cursors are opaque to clients: base64url of a small JSON document, which each list defines.
// Nothing in a cursor widens access: every query is still scoped to the caller's account.

// EncodeCursor returns the cursor of v, a plain struct.
func EncodeCursor(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode cursor: %v", err)) // plain structs always marshal
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor made by EncodeCursor into v; ErrBadCursor, with a message for the
// client, when s is not one.
func DecodeCursor(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return fmt.Errorf("%w: not a cursor this service made; pass next_cursor unchanged", ErrBadCursor)
	}
	return nil
}
