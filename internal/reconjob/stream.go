package reconjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
)

// resultsPartBytes is how much of a stored results document is read at a time by OpenResults.
// Parts of a few megabytes keep memory flat and the reads few: each read of a compressed
// document decompresses it from its start, so smaller parts would cost more in total. Tests
// lower it.
var resultsPartBytes int64 = 4 << 20

// OpenResults returns a completed job's stored results document as a reader that fetches it a
// part at a time, for VisitResults: ErrNotFound for no such job, and ErrNotReady (with the job)
// while it is processing or when it failed. Reads fail with ErrNotFound should the results be
// deleted meanwhile.
func (s *Service) OpenResults(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, io.Reader, error) {
	j, err := s.Get(ctx, accountID, env, id)
	if err != nil {
		return j, nil, err
	}
	if j.ResultsDeletedAt != nil {
		return j, nil, &GoneError{ID: id, DeletedAt: *j.ResultsDeletedAt, Expired: "results"}
	}
	if j.Status != StatusCompleted {
		return j, nil, ErrNotReady
	}
	return j, &resultsReader{ctx: ctx, store: s.Store, id: id}, nil
}

// resultsReader reads a stored results document part by part.
type resultsReader struct {
	ctx   context.Context
	store Store
	id    uuid.UUID
	off   int64
	buf   []byte
	eof   bool
}

func (r *resultsReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		part, err := r.store.ResultsPart(r.ctx, r.id, r.off, resultsPartBytes)
		if err != nil {
			return 0, fmt.Errorf("read results of job %s at byte %d: %w", r.id, r.off, err)
		}
		r.off += int64(len(part))
		r.buf, r.eof = part, int64(len(part)) < resultsPartBytes
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// ResultsVisitor receives the items of a results document, one at a time, in the document's
// order: matched, partial and unmatched references (each in the order of the expected file),
// the unmatched bank entries, the summary. A nil function skips its items.
type ResultsVisitor struct {
	Matched   func(MatchedReference) error
	Partial   func(PartialReference) error
	Unmatched func(UnmatchedReference) error
	BankEntry func(BankEntry) error
	Summary   func(Summary) error
}

// VisitResults decodes the results document r (as a Store keeps it) item by item, so that a
// document of any size is read in flat memory.
func VisitResults(r io.Reader, v ResultsVisitor) error {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("decode results: %w", err)
		}
		var key string
		key, _ = tok.(string)
		switch key {
		case "matched":
			err = visitArray(dec, v.Matched)
		case "partial":
			err = visitArray(dec, v.Partial)
		case "unmatched":
			err = visitArray(dec, v.Unmatched)
		case "unmatched_bank_entries":
			err = visitArray(dec, v.BankEntry)
		case "summary":
			var s Summary
			if err = dec.Decode(&s); err == nil && v.Summary != nil {
				err = v.Summary(s)
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return fmt.Errorf("decode results: %s: %w", key, err)
		}
	}
	return expectDelim(dec, '}')
}

// visitArray decodes a JSON array item by item, calling fn with each (null is no items).
func visitArray[T any](dec *json.Decoder, fn func(T) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array, have %v", tok)
	}
	for dec.More() {
		var item T
		if err := dec.Decode(&item); err != nil {
			return err
		}
		if fn != nil {
			if err := fn(item); err != nil {
				return err
			}
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("decode results: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return errors.New("decode results: not a results document")
	}
	return nil
}
