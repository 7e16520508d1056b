package postgres

import (
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// TestArgumentsEncodeDirectly checks that uuid.UUID and decimal.Decimal arguments take the
// direct binary plans, not pgx's driver.Valuer detour through text.
func TestArgumentsEncodeDirectly(t *testing.T) {
	m := pgtype.NewMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUID, tryWrapDecimal}, m.TryWrapEncodePlanFuncs...)
	tests := []struct {
		name  string
		oid   uint32
		value any
		want  any
	}{
		{"uuid", pgtype.UUIDOID, uuid.New(), &uuidPlan{}},
		{"decimal", pgtype.NumericOID, decimal.RequireFromString("-12.30"), &decimalPlan{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := m.PlanEncode(tt.oid, pgtype.BinaryFormatCode, tt.value)
			if plan == nil {
				t.Fatal("no plan")
			}
			switch tt.want.(type) {
			case *uuidPlan:
				if _, ok := plan.(*uuidPlan); !ok {
					t.Errorf("plan %T, want the direct uuid plan", plan)
				}
			case *decimalPlan:
				if _, ok := plan.(*decimalPlan); !ok {
					t.Errorf("plan %T, want the direct decimal plan", plan)
				}
			}
			if _, err := plan.Encode(tt.value, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}
