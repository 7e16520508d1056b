# Statement Matching Service. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GO          ?= go
SPECS       := openapi/reconciliation.yaml openapi/parsing.yaml
SPECTRAL    := openapi/node_modules/.bin/spectral
REDOCLY     := openapi/node_modules/.bin/redocly
# The TypeScript SDK's pinned tooling (the stamp contract-tests' npm ci helper also writes).
TS_SDK_DEPS := gen/typescript/node_modules/.statementmatch-npm-ci
FUZZTIME    ?= 30s
# How long the fuzzer may shrink one new input: its default (60s) spends a whole FUZZTIME on one
# input of the larger seeds (the PDFs) instead of exploring.
FUZZMINIMIZE ?= 3s
BENCHTIME   ?= 1s
TEST_FLAGS  ?=
# The npm MT940 reader make bench-peers compares ours with.
MT940JS     := 1.0.0
# mt940-js requires tslib without declaring it.
TSLIB       := 2.8.1
# The Go SDK, a module of its own (gen/sdk), checked from here through the replace in go.mod.
SDK         := github.com/statementmatch/service/gen/sdk

.PHONY: help gen verify build run test test-chaos test-race lint bench bench-peers bench-retention load fuzz contract-test corpus corpus-scans corpus-report

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

gen: $(TS_SDK_DEPS) ## Regenerate gen/ from the OpenAPI specs (oapi-codegen pinned in go.mod; openapi-typescript pinned in gen/typescript).
	$(GO) generate ./gen/...
	cd gen/sdk && $(GO) generate ./...
	cd gen/typescript && npm run --silent gen

$(TS_SDK_DEPS): gen/typescript/package.json gen/typescript/package-lock.json
	cd gen/typescript && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

verify: gen ## Regenerate and fail if gen/ differs from what is committed.
	@if [ -n "$$(git status --porcelain -- gen)" ]; then \
		echo "gen/ is out of date with the specs: run 'make gen' and commit the result." >&2; \
		git status --short -- gen >&2; git --no-pager diff --stat -- gen >&2; exit 1; fi
	@echo "gen/ matches the specs."

build: ## Build statementd into bin/.
	$(GO) build -o bin/ ./cmd/...

run: ## Start statementd on the embedded PostgreSQL default (or DATABASE_URL).
	$(GO) run ./cmd/statementd serve

test: ## Run unit, database and contract tests (PostgreSQL server binaries needed, no server).
	$(GO) test $(TEST_FLAGS) ./...

test-chaos: ## Run the slow reliability tests (TestChaos*: workers killed, database stopped, hostile uploads).
	STATEMENTD_CHAOS=1 $(GO) test $(TEST_FLAGS) -count=1 -timeout 20m -run '^TestChaos' ./contract-tests/

test-race: ## Run all tests with the race detector.
	$(GO) test -race $(TEST_FLAGS) ./...

$(SPECTRAL): openapi/package.json openapi/package-lock.json
	cd openapi && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

lint: $(SPECTRAL) ## go vet, staticcheck, gofmt, spectral and redocly on both specs, promtool on the alert rules.
	$(GO) vet ./... $(SDK)/...
	$(GO) tool staticcheck ./... $(SDK)/...
	cd gen/sdk && $(GO) mod tidy -diff
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:" >&2; echo "$$out" >&2; exit 1; fi
	$(SPECTRAL) lint --ruleset openapi/.spectral.yaml --fail-severity=hint $(SPECS)
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY) lint --config openapi/redocly.yaml $(SPECS)
	cd internal/metrics && promtool check rules alerts.yaml && promtool test rules alerts_test.yaml

bench: ## Run the Go benchmarks.
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./...

load: ## Load-test GET job status and results (1,000 req/s, then the maximum) against pgbench -S on the same cluster.
	$(GO) test ./contract-tests/ -run '^$$' -bench BenchmarkAPILoad -benchtime 1x -timeout 30m

bench-peers: ## Read the same generated MT940, PDF and scan with our engine and with mt940-js, pdftotext -layout and tesseract; print the table.
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "bench-peers needs node and npm (mt940-js)" >&2; exit 1; }
	@command -v pdftotext >/dev/null || { echo "bench-peers needs pdftotext: apt-get install poppler-utils" >&2; exit 1; }
	@command -v tesseract >/dev/null || { echo "bench-peers needs tesseract: apt-get install tesseract-ocr" >&2; exit 1; }
	@dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	(cd "$$dir" && npm install --no-audit --no-fund --loglevel=error mt940-js@$(MT940JS) tslib@$(TSLIB) >/dev/null) && \
	STATEMENTD_PEERS_DIR="$$dir" $(GO) test ./internal/statement/engine/ -run '^$$' -bench '^BenchmarkPeers$$' -benchtime 1x -timeout 30m

bench-retention: ## Measure the retention purge of 1,000,000 transactions against the API's reads beside it.
	$(GO) test ./contract-tests/ -run '^$$' -bench BenchmarkRetentionPurge -benchtime 1x -timeout 30m

fuzz: ## Run every fuzz target for FUZZTIME each (seed corpora also run in `make test`).
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) $$pkg; \
		done; done

contract-test: ## Run the black-box contract tests against a freshly built statementd.
	$(GO) test $(TEST_FLAGS) ./contract-tests/...

corpus: ## Rebuild the PDF development corpus (internal/statement/corpus/testdata) through the real producers, then its scans.
	$(GO) run ./internal/statement/corpus/gen
	$(GO) run ./internal/statement/corpus/gen -scans

corpus-scans: ## Rebuild only the scans and phone photos of the corpus (testdata/scans) from the committed PDFs.
	$(GO) run ./internal/statement/corpus/gen -scans

corpus-report: ## Print how the PDF parser reads each corpus file, and the share read exactly.
	CORPUS_REPORT=1 $(GO) test ./internal/statement/corpus -run '^TestCorpus$$' -count=1 -v
