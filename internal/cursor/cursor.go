// Package cursor makes the opaque pagination cursors of every list the APIs answer: jobs,
// transactions, webhook deliveries. A cursor is base64url of a small JSON document that each
// list defines; nothing in it widens access, every query is still scoped to the caller's
// account.
package cursor

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrBad: a pagination cursor is malformed or belongs to another list.
var ErrBad = errors.New("invalid cursor")

// Encode returns the cursor of v, a plain struct.
func Encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode cursor: %v", err)) // plain structs always marshal
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode reads a cursor made by Encode into v; ErrBad, with a message for the client, when s is
// not one.
func Decode(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return fmt.Errorf("%w: not a cursor this service made; pass next_cursor unchanged", ErrBad)
	}
	return nil
}
