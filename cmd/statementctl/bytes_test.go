package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestByteMeter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	now := time.Unix(0, 0)
	m := &byteMeter{w: &out, label: "uploading march.pdf", total: 2_500_000, now: func() time.Time { return now }}
	m.add(1_000_000) // drawn: the first count
	m.add(500_000)   // not drawn: within meterTick of the last drawing
	now = now.Add(meterTick)
	m.add(500_000)
	m.finish()
	require.Equal(t, "\r\033[Kuploading march.pdf  1.0 MB of 2.5 MB  40 %"+
		"\r\033[Kuploading march.pdf  2.0 MB of 2.5 MB  80 %"+
		"\r\033[Kuploading march.pdf  2.0 MB of 2.5 MB  80 %\n", out.String())

	out.Reset()
	unknown := &byteMeter{w: &out, label: "downloading x.csv", total: -1, now: time.Now}
	unknown.add(999)
	unknown.finish()
	require.Equal(t, "\r\033[Kdownloading x.csv  999 B\r\033[Kdownloading x.csv  999 B\n", out.String())

	var off *byteMeter // not a terminal
	off.add(5)
	off.finish()
	require.Nil(t, off.reader(nil), "a nil meter passes the reader through")
}

func TestHumanBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 25_400_000: "25.4 MB", 3_000_000_000: "3.0 GB"} {
		require.Equal(t, want, humanBytes(n))
	}
}

// TestTransfersShowTheirBytesOnATerminal: an upload counts the body as the transport sends it,
// and an export the bytes written to the file; off a terminal neither draws anything.
func TestTransfersShowTheirBytesOnATerminal(t *testing.T) {
	t.Parallel()
	csv := strings.Repeat("1,2024-03-01,10.00\r\n", 500)
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"POST /api/v1/jobs": answer(202, parseJob("queued", "")),
		"GET " + fakeJobAPI: answer(200, parseJob("failed", `,"error":{"code":"no_transactions","message":"None."}`)),
		"GET " + fakeJobAPI + "/export": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Length", fmt.Sprint(len(csv)))
			fmt.Fprint(w, csv)
		},
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "statement.csv")
	require.NoError(t, os.WriteFile(file, []byte("Date,Amount\n2024-03-01,10.00\n"), 0o600))
	env := map[string]string{envParseBaseURL: srv.URL, envAPIKey: "smk_test"}

	for _, terminal := range []bool{true, false} {
		a, _, stderr := testApp(env)
		a.stderrTerminal = terminal
		a.run(context.Background(), []string{"parse", file})
		uploaded := strings.Contains(stderr.String(), "uploading statement.csv  ")
		require.Equal(t, terminal, uploaded, stderr.String())
		if terminal {
			require.Contains(t, stderr.String(), " 100 %\n", "the whole body went out")
		}

		a, _, stderr = testApp(env)
		a.stderrTerminal = terminal
		out := filepath.Join(dir, fmt.Sprintf("export-%v.csv", terminal))
		require.Equal(t, exitOK, a.run(context.Background(), []string{"export", fakeJobID, "-o", out}), stderr.String())
		require.Equal(t, terminal, strings.Contains(stderr.String(), "downloading export-true.csv  10.0 kB of 10.0 kB  100 %\n"), stderr.String())
	}
}
