package parsejob

import (
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

type resultsCursor struct {
	V   int       `json:"v"`
	Job uuid.UUID `json:"j"`
	Seq int       `json:"s"`
}

const cursorVersion = 1

// listFilter identifies a list's filters, so a cursor is not used with others.
func listFilter(req ListRequest) string {
	var fields []string
	if req.Status != nil {
		fields = append(fields, "status="+string(*req.Status))
	}
	if req.CreatedAfter != nil {
		fields = append(fields, "after="+req.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if req.CreatedBefore != nil {
		fields = append(fields, "before="+req.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	if req.FileName != "" {
		fields = append(fields, "file="+req.FileName)
	}
	return cursor.Filter(fields...)
}

func encodeListCursor(m Mark, filter string) string { return cursor.EncodeList(m, filter) }

func decodeListCursor(s, filter string) (Mark, error) {
	return cursor.DecodeList(s, filter, "send the same status, created_after and created_before as for the first page")
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
