# The curl samples of the API reference pages (/docs): each region between
# "sample:start API OPERATION" and "sample:end" is shown for that operation, and
# contract-tests/docs_samples_test.go runs every region with bash against a server, so no sample
# rots. They read BASE_URL, CLIENT_ID, CLIENT_SECRET and TOKEN (Reconciliation API), PARSE_URL
# and API_KEY (Parsing API), JOB_ID, WEBHOOK_ID and HOOK_URL from the environment.
# --fail-with-body makes curl exit non-zero, with the error body shown, on a 4xx or 5xx answer.

# sample:start reconciliation createToken
curl --fail-with-body -sS -X POST "$BASE_URL/api/v1/token" \
  -H 'Content-Type: application/json' \
  -d "{\"client_id\": \"$CLIENT_ID\", \"client_secret\": \"$CLIENT_SECRET\"}"
# {"access_token":"tok_...","token_type":"Bearer","expires_in":3600,"scope":"..."}
# sample:end

# sample:start reconciliation createJob
curl --fail-with-body -sS -X POST "$BASE_URL/api/v1/jobs" \
  -H "Authorization: Bearer $TOKEN" \
  -H "Idempotency-Key: $(uuidgen 2>/dev/null || cat /proc/sys/kernel/random/uuid)" \
  -F bank=@bank.csv -F expected=@expected.csv
# {"job_id":"...","status":"processing","created_at":"..."}
# sample:end

# sample:start reconciliation getJob
curl --fail-with-body -sS "$BASE_URL/api/v1/jobs/$JOB_ID" -H "Authorization: Bearer $TOKEN"
# sample:end

# sample:start reconciliation getJobResults
curl --fail-with-body -sS "$BASE_URL/api/v1/jobs/$JOB_ID/results" -H "Authorization: Bearer $TOKEN"
# As a spreadsheet: ?format=xlsx (or csv), saved with -o results.xlsx
# sample:end

# sample:start reconciliation getLimits
curl --fail-with-body -sS "$BASE_URL/api/v1/limits" -H "Authorization: Bearer $TOKEN"
# sample:end

# sample:start reconciliation getHealth
curl --fail-with-body -sS "$BASE_URL/healthz"
# sample:end

# sample:start reconciliation getReadiness
curl --fail-with-body -sS "$BASE_URL/readyz"
# sample:end

# sample:start reconciliation getOpenAPISpec
curl --fail-with-body -sS "$BASE_URL/api/v1/openapi.yaml" -o reconciliation.yaml
# sample:end

# sample:start reconciliation getDocs
curl --fail-with-body -sS "$BASE_URL/docs" -o reconciliation.html
# sample:end

# sample:start reconciliation deleteJob
curl --fail-with-body -sS -X DELETE "$BASE_URL/api/v1/jobs/$JOB_ID" -H "Authorization: Bearer $TOKEN"
# sample:end

# sample:start parsing createJob
curl --fail-with-body -sS -X POST "$PARSE_URL/api/v1/jobs" \
  -H "Authorization: Bearer $API_KEY" \
  -H "Idempotency-Key: $(uuidgen 2>/dev/null || cat /proc/sys/kernel/random/uuid)" \
  -F file=@statement.csv
# A protected PDF: -F password=... as well
# sample:end

# sample:start parsing listJobs
curl --fail-with-body -sS "$PARSE_URL/api/v1/jobs?status=completed&limit=20" -H "Authorization: Bearer $API_KEY"
# The next page: ?cursor= the answer's data.next_cursor
# sample:end

# sample:start parsing getJob
curl --fail-with-body -sS "$PARSE_URL/api/v1/jobs/$JOB_ID" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing getJobResults
curl --fail-with-body -sS "$PARSE_URL/api/v1/jobs/$JOB_ID/results?limit=100" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing exportJob
curl --fail-with-body -sS "$PARSE_URL/api/v1/jobs/$JOB_ID/export?format=csv" -H "Authorization: Bearer $API_KEY" -o transactions.csv
# sample:end

# sample:start parsing getUsage
curl --fail-with-body -sS "$PARSE_URL/api/v1/usage" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing getStatus
curl --fail-with-body -sS "$PARSE_URL/api/v1/status" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing createWebhook
curl --fail-with-body -sS -X POST "$PARSE_URL/api/v1/webhooks" \
  -H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json' \
  -d "{\"url\": \"$HOOK_URL\", \"events\": [\"job.completed\", \"job.failed\"]}"
# The answer alone shows the signing secret: keep it.
# sample:end

# sample:start parsing listWebhooks
curl --fail-with-body -sS "$PARSE_URL/api/v1/webhooks" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing listWebhookDeliveries
curl --fail-with-body -sS "$PARSE_URL/api/v1/webhooks/$WEBHOOK_ID/deliveries?limit=20" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing testWebhook
curl --fail-with-body -sS -X POST "$PARSE_URL/api/v1/webhooks/test" \
  -H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json' \
  -d '{"event": "job.completed"}'
# sample:end

# sample:start parsing getHealth
curl --fail-with-body -sS "$PARSE_URL/healthz"
# sample:end

# sample:start parsing getReadiness
curl --fail-with-body -sS "$PARSE_URL/readyz"
# sample:end

# sample:start parsing getOpenAPISpec
curl --fail-with-body -sS "$PARSE_URL/api/v1/openapi.yaml" -o parsing.yaml
# sample:end

# sample:start parsing getDocs
curl --fail-with-body -sS "$PARSE_URL/docs" -o parsing.html
# sample:end

# sample:start parsing deleteWebhook
curl --fail-with-body -sS -X DELETE "$PARSE_URL/api/v1/webhooks/$WEBHOOK_ID" -H "Authorization: Bearer $API_KEY"
# sample:end

# sample:start parsing deleteJob
curl --fail-with-body -sS -X DELETE "$PARSE_URL/api/v1/jobs/$JOB_ID" -H "Authorization: Bearer $API_KEY"
# sample:end
