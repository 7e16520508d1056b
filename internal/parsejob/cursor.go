package parsejob

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/cursor"
)

// Cursors are opaque to clients (see cursor.Encode). A job list cursor holds the
// last job's place in the newest-first order (keyset pagination: a page starts strictly after
// it, so jobs created meanwhile never shift later pages) and a digest of the filters it was made
// for; a results cursor holds the job and the last transaction's position.

type listCursor struct {
	V      int       `json:"v"`
	At     time.Time `json:"t"`
	ID     uuid.UUID `json:"i"`
	Filter string    `json:"f"`
}

type resultsCursor struct {
	V   int       `json:"v"`
	Job uuid.UUID `json:"j"`
	Seq int       `json:"s"`
}

const cursorVersion = 1

// listFilter identifies a list's filters, so a cursor is not used with others.
func listFilter(req ListRequest) string {
	h := sha256.New()
	field := func(s string) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	if req.Status != nil {
		field("status=" + string(*req.Status))
	}
	if req.CreatedAfter != nil {
		field("after=" + req.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if req.CreatedBefore != nil {
		field("before=" + req.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:9])
}

func encodeListCursor(m Mark, filter string) string {
	return cursor.Encode(listCursor{V: cursorVersion, At: m.CreatedAt.UTC(), ID: m.ID, Filter: filter})
}

func decodeListCursor(s, filter string) (Mark, error) {
	var c listCursor
	if err := cursor.Decode(s, &c); err != nil {
		return Mark{}, err
	}
	if c.V != cursorVersion || c.ID == uuid.Nil || c.At.IsZero() {
		return Mark{}, fmt.Errorf("%w: not a job list cursor", cursor.ErrBad)
	}
	if c.Filter != filter {
		return Mark{}, fmt.Errorf("%w: the cursor was made for other filters; send the same status, created_after and created_before as for the first page", cursor.ErrBad)
	}
	return Mark{CreatedAt: c.At, ID: c.ID}, nil
}

// maxCursorSeq is the last position a results cursor may hold: a transaction's seq is a
// PostgreSQL integer, and a page reads up to MaxResultsLimit+1 positions past the cursor's.
const maxCursorSeq = math.MaxInt32 - MaxResultsLimit - 1

func encodeResultsCursor(jobID uuid.UUID, seq int) string {
	return cursor.Encode(resultsCursor{V: cursorVersion, Job: jobID, Seq: seq})
}

func decodeResultsCursor(s string, jobID uuid.UUID) (int, error) {
	var c resultsCursor
	if err := cursor.Decode(s, &c); err != nil {
		return 0, err
	}
	if c.V != cursorVersion || c.Seq < 0 || c.Seq > maxCursorSeq {
		return 0, fmt.Errorf("%w: not a results cursor", cursor.ErrBad)
	}
	if c.Job != jobID {
		return 0, fmt.Errorf("%w: the cursor belongs to another job's results", cursor.ErrBad)
	}
	return c.Seq, nil
}
