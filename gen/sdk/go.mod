module github.com/statementmatch/service/gen/sdk

go 1.24.0

require (
	github.com/google/uuid v1.6.0
	github.com/shopspring/decimal v1.6.0
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/oauth2 v0.30.0
)
