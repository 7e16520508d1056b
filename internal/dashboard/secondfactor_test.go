package dashboard

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/boombuler/barcode/qr"
	"github.com/stretchr/testify/require"
)

// TestQRSVG draws the modules of the QR code, and only them, each where the code has it, inside
// a quiet zone of four modules.
func TestQRSVG(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"otpauth://totp/Statement%20Matching:a@example.com?algorithm=SHA1&digits=6&issuer=Statement%20Matching&period=30&secret=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"x",
	} {
		svg, err := qrSVG(text)
		require.NoError(t, err)
		code, err := qr.Encode(text, qr.M, qr.Auto)
		require.NoError(t, err)
		n := code.Bounds().Dx()
		require.Contains(t, string(svg), fmt.Sprintf(`viewBox="0 0 %d %d"`, n+8, n+8))
		drawn := map[[2]int]bool{}
		for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(string(svg), -1) {
			x, _ := strconv.Atoi(m[1])
			y, _ := strconv.Atoi(m[2])
			drawn[[2]int{x - 4, y - 4}] = true
		}
		dark := 0
		for y := range n {
			for x := range n {
				r, _, _, _ := code.At(x, y).RGBA()
				require.Equal(t, r == 0, drawn[[2]int{x, y}], "module %d,%d", x, y)
				if r == 0 {
					dark++
				}
			}
		}
		require.Len(t, drawn, dark, "nothing drawn outside the code")
	}
}
