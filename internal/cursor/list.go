package cursor

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Mark is an item's place in a newest-first list (created_at, then id, both descending): a page
// starts strictly after the previous page's last Mark (keyset pagination), so items created
// meanwhile never shift later pages.
type Mark struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// listCursor is a job list's cursor: the last item's Mark and a digest of the filters it was
// made for.
type listCursor struct {
	V      int       `json:"v"`
	At     time.Time `json:"t"`
	ID     uuid.UUID `json:"i"`
	Filter string    `json:"f"`
}

const listVersion = 1

// Filter digests a list's filters, given as "name=value" strings in a fixed order with the
// unset ones left out, so that a cursor made for some filters is not used with others.
func Filter(fields ...string) string {
	h := sha256.New()
	for _, f := range fields {
		_ = binary.Write(h, binary.BigEndian, uint64(len(f)))
		h.Write([]byte(f))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:9])
}

// EncodeList returns the cursor of the page after m, for the filters of digest filter.
func EncodeList(m Mark, filter string) string {
	return Encode(listCursor{V: listVersion, At: m.CreatedAt.UTC(), ID: m.ID, Filter: filter})
}

// DecodeList reads a cursor made by EncodeList for the filters of digest filter; ErrBad, with
// hint (which filters to repeat) for a cursor of other filters.
func DecodeList(s, filter, hint string) (Mark, error) {
	var c listCursor
	if err := Decode(s, &c); err != nil {
		return Mark{}, err
	}
	if c.V != listVersion || c.ID == uuid.Nil || c.At.IsZero() {
		return Mark{}, fmt.Errorf("%w: not a job list cursor", ErrBad)
	}
	if c.Filter != filter {
		return Mark{}, fmt.Errorf("%w: the cursor was made for other filters; %s", ErrBad, hint)
	}
	return Mark{CreatedAt: c.At, ID: c.ID}, nil
}
