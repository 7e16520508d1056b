package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestRunReportsAnOpenLoop(t *testing.T) {
	var withKey atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer k" {
			withKey.Add(1)
		}
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-rate", "100", "-duration", "300ms", "-warmup", "0s",
		"-url", srv.URL + "/a", "-url", srv.URL + "/b", "-H", "Authorization: Bearer k", "-json"}, nil, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d; stderr %s; stdout %s", code, errOut.String(), out.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if res["requests"] != float64(30) || res["valid"] != true || res["mode"] != "open" {
		t.Errorf("result %s", out.String())
	}
	if withKey.Load() != 30 {
		t.Errorf("%d requests carried the -H header, want 30", withKey.Load())
	}
}

func TestRunReadsTargetsAndFailsOnErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "targets.txt")
	content := "GET " + srv.URL + "/x\nAuthorization: Bearer good\n\nGET " + srv.URL + "/y\nAuthorization: Bearer bad\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-concurrency", "2", "-duration", "200ms", "-warmup", "0s", "-targets", file}, nil, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 for a run with errors; stderr %s", code, errOut.String())
	}
	for _, want := range []string{"closed loop of 2 connections", "429: ", "200: ", "INVALID RUN"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	// The same from stdin.
	out.Reset()
	code = run(context.Background(), []string{"-concurrency", "1", "-duration", "100ms", "-warmup", "0s", "-targets", "-"},
		strings.NewReader("GET "+srv.URL+"/x\nAuthorization: Bearer good\n"), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "0 errors") {
		t.Errorf("stdin targets: exit %d\n%s", code, out.String())
	}
}

func TestRunRejectsBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-url", "http://127.0.0.1:1/"},                                     // neither rate nor concurrency
		{"-rate", "10", "-concurrency", "2", "-url", "http://127.0.0.1:1/"}, // both
		{"-rate", "10"},                     // no targets
		{"-rate", "10", "-url", "ftp://x/"}, // not HTTP
		{"-rate", "10", "-url", "http://127.0.0.1:1/", "-H", "no colon"},
		{"-rate", "10", "-url", "http://127.0.0.1:1/", "-targets", "f"}, // both sources
		{"-rate", "10", "-targets", filepath.Join(t.TempDir(), "missing")},
		{"-rate", "10", "-url", "http://127.0.0.1:1/", "extra"},
		{"-bogus"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, nil, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
