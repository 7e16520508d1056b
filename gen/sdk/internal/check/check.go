// Package check holds the few assertions, and the TestMain, that the SDK's tests use, so that
// the SDK module needs no test library: every module in its go.mod, test-only ones included,
// lands in an integrator's module graph.
package check

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"
)

// NoError stops the test when err is not nil.
func NoError(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%sunexpected error: %v", prefix(msgAndArgs), err)
	}
}

// ErrorIs stops the test unless errors.Is(err, target).
func ErrorIs(t testing.TB, err, target error, msgAndArgs ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%serror %v is not %v", prefix(msgAndArgs), err, target)
	}
}

// EqualError stops the test unless err's text is want.
func EqualError(t testing.TB, err error, want string, msgAndArgs ...any) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("%serror %v, want %q", prefix(msgAndArgs), err, want)
	}
}

// Equal stops the test unless want and got are deeply equal.
func Equal(t testing.TB, want, got any, msgAndArgs ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%sgot  %#v\nwant %#v", prefix(msgAndArgs), got, want)
	}
}

// Len stops the test unless v (a slice, map, string or channel) has n elements.
func Len(t testing.TB, v any, n int, msgAndArgs ...any) {
	t.Helper()
	if got := reflect.ValueOf(v).Len(); got != n {
		t.Fatalf("%shas %d elements, want %d: %#v", prefix(msgAndArgs), got, n, v)
	}
}

// NotEmpty stops the test when v is its type's zero value or has no elements.
func NotEmpty(t testing.TB, v any, msgAndArgs ...any) {
	t.Helper()
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Chan, reflect.Array:
		if r.Len() > 0 {
			return
		}
	default:
		if r.IsValid() && !r.IsZero() {
			return
		}
	}
	t.Fatalf("%sis empty: %#v", prefix(msgAndArgs), v)
}

// True stops the test unless ok.
func True(t testing.TB, ok bool, msgAndArgs ...any) {
	t.Helper()
	if !ok {
		t.Fatalf("%sshould hold", prefix(msgAndArgs))
	}
}

func prefix(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return ""
	}
	format, ok := msgAndArgs[0].(string)
	if !ok {
		return fmt.Sprint(msgAndArgs...) + ": "
	}
	return fmt.Sprintf(format, msgAndArgs[1:]...) + ": "
}

// SkipServerExamples is a TestMain's body for a package whose examples call a live service:
// when the environment variable urlVar is empty and no -skip was given, the examples matching
// pattern are skipped (with a note on stderr) and the rest run.
func SkipServerExamples(m *testing.M, urlVar, pattern string) int {
	flag.Parse()
	if os.Getenv(urlVar) == "" && flag.Lookup("test.skip").Value.String() == "" {
		_ = flag.Set("test.skip", pattern)
		fmt.Fprintln(os.Stderr, urlVar+" is not set: the examples that call the API are skipped")
	}
	return m.Run()
}
