package main

import "testing"

func TestBaseURL(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		":8080":           "http://localhost:8080",
		"0.0.0.0:8082":    "http://localhost:8082",
		"[::]:8081":       "http://localhost:8081",
		"127.0.0.1:20001": "http://127.0.0.1:20001",
		"[::1]:9000":      "http://[::1]:9000",
		"api.local:80":    "http://api.local:80",
		"":                "",
	} {
		if got := baseURL(addr); got != want {
			t.Errorf("baseURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
