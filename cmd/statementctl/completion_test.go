package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestComplete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"commands and groups", []string{"--", "we"}, []string{"webhooks"}},
		{"every first word", []string{"--", "v"}, []string{"verify-webhook", "version"}},
		{"a group's subcommands", []string{"--", "webhooks", "d"}, []string{"deliveries"}},
		{"a command's flags", []string{"--", "reconcile", "--s"}, []string{"--sandbox"}},
		{"a one-letter flag", []string{"--", "export", "ID", "-"}, []string{"--api-key", "--base-url", "--format", "-o", "--output", "--profile", "--verbose"}},
		{"a flag's values", []string{"--", "jobs", "list", "--status", ""}, []string{"queued", "processing", "completed", "review", "failed"}},
		{"a file argument is left to the shell", []string{"--", "parse", ""}, nil},
		{"a file-valued flag is left to the shell", []string{"--", "export", "-o", ""}, nil},
		{"help completes commands", []string{"--", "help", "jobs", ""}, []string{"list", "get"}},
		{"completion's shells", []string{"--", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{"nothing after an unknown word", []string{"--", "frobnicate", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, stdout, _ := testApp(nil)
			require.Equal(t, exitOK, a.run(context.Background(), append([]string{completeCommand}, tt.args...)))
			got := strings.Fields(stdout.String())
			if len(got) == 0 {
				got = nil
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		a, stdout, _ := testApp(nil)
		require.Equal(t, exitOK, a.run(context.Background(), []string{"completion", shell}))
		require.Contains(t, stdout.String(), "statementctl __complete --", shell)
	}
	a, _, stderr := testApp(nil)
	require.Equal(t, exitUsage, a.run(context.Background(), []string{"completion", "powershell"}))
	require.Contains(t, stderr.String(), `no completion for "powershell": bash, zsh or fish`)
}
