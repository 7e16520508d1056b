// Package attempt holds the fencing of work that the queue may run more than once: every kind of
// job, and every webhook delivery, is worked in numbered attempts, and only the attempt that
// holds the row may write its outcome.
package attempt

import "errors"

// ErrStale: an attempt lost its claim on its row to a newer attempt, or the row is already
// finished. Its outcome must be dropped.
var ErrStale = errors.New("stale attempt")
