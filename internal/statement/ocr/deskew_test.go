package ocr

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// blankPage is a blank page of w×h pixels of the gray v.
func blankPage(w, h int, v uint8) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = v
	}
	return g
}

// fillRect paints the rectangle from (x0, y0) to (x1, y1), its far edges excluded, the gray v.
func fillRect(g *image.Gray, x0, y0, x1, y1 int, v uint8) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			g.Pix[y*g.Stride+x] = v
		}
	}
}

// printedPage draws a page of 150 DPI "print": rows of word-like dark blocks, 30 lines of
// 8 to 12 words, on white paper, with a long hairline rule under the first line.
func printedPage(r *rand.Rand) *image.Gray {
	g := blankPage(1240, 1754, 250)
	fill := func(x0, y0, x1, y1 int, v uint8) { fillRect(g, x0, y0, x1, y1, v) }
	for line := range 30 {
		y := 150 + 45*line
		x := 100
		for x < 1100 {
			w := 30 + r.IntN(90)
			// A word: letters of strokes with gaps, 14 pixels high.
			for lx := x; lx < min(x+w, 1140); lx += 7 {
				fill(lx, y, lx+4, y+14, 30)
			}
			x += w + 12
		}
	}
	fill(100, 172, 1140, 174, 60)
	return g
}

// TestSkew: the skew of a page turned by a known angle is found to a tenth of a degree (a line across an A4 page at 300 DPI drifts by 4 pixels),
// and turning it back by that angle levels it.
func TestSkew(t *testing.T) {
	t.Parallel()
	for _, deg := range []float64{-4.2, -2.5, -1, 0, 0.7, 1.8, 3.3} {
		t.Run(fmt.Sprint(deg), func(t *testing.T) {
			t.Parallel()
			page := printedPage(rand.New(rand.NewPCG(1, 2)))
			turned := Rotate(page, deg)
			got := Skew(turned)
			require.InDelta(t, deg, got, 0.1, "the angle the page was turned by")
			require.InDelta(t, 0, Skew(Rotate(turned, -got)), 0.1, "level after turning back")
		})
	}
}

// TestSkewWithoutPrint: a blank page, or a dark one, has no skew to tell.
func TestSkewWithoutPrint(t *testing.T) {
	t.Parallel()
	require.Zero(t, Skew(blankPage(400, 300, 255)))
	require.Zero(t, Skew(image.NewGray(image.Rect(0, 0, 400, 300))))
	require.Zero(t, Skew(image.NewGray(image.Rect(0, 0, 0, 0))))
}

// TestRotate: the canvas grows to hold the turned page, the uncovered corners are white, and
// turning by 0 changes nothing.
func TestRotate(t *testing.T) {
	t.Parallel()
	page := printedPage(rand.New(rand.NewPCG(3, 4)))
	same := Rotate(page, 0)
	require.Equal(t, page.Bounds(), same.Bounds())
	require.Equal(t, page.Pix, same.Pix)
	turned := Rotate(page, 3)
	rad := 3 * math.Pi / 180
	wantW := 1240*math.Cos(rad) + 1754*math.Sin(rad)
	require.InDelta(t, wantW, turned.Bounds().Dx(), 1)
	require.Equal(t, uint8(255), turned.GrayAt(0, 0).Y, "an uncovered corner is white")
}

// TestEraseRules: a long hairline rule is erased, the letters touching it and a short dash
// are kept.
func TestEraseRules(t *testing.T) {
	t.Parallel()
	g := blankPage(900, 200, 255)
	fill := func(x0, y0, x1, y1 int, v uint8) { fillRect(g, x0, y0, x1, y1, v) }
	fill(50, 100, 850, 103, 120) // a rule, 800 pixels (2.7 inches at 300 DPI), 3 thick
	fill(52, 103, 54, 104, 200)  // its soft edge
	fill(300, 70, 306, 100, 20)  // a letter's stem standing on it
	fill(400, 40, 460, 43, 20)   // a dash, 60 pixels: no rule
	fill(500, 60, 560, 100, 20)  // a bold block touching the rule
	eraseRules(g, 300)
	require.Equal(t, uint8(255), g.GrayAt(100, 101).Y, "the rule is gone")
	require.Equal(t, uint8(255), g.GrayAt(700, 102).Y, "all along")
	require.Equal(t, uint8(255), g.GrayAt(53, 103).Y, "its soft edge too")
	require.Equal(t, uint8(20), g.GrayAt(303, 80).Y, "the letter stays")
	require.Equal(t, uint8(20), g.GrayAt(430, 41).Y, "the dash stays")
	require.Equal(t, uint8(20), g.GrayAt(530, 80).Y, "the bold block stays")
}

// TestDecodePGM: pdftoppm's gray output decodes; anything else, or too large, is refused.
func TestDecodePGM(t *testing.T) {
	t.Parallel()
	pgm := append([]byte("P5\n3 2\n255\n"), 1, 2, 3, 4, 5, 6)
	cases := []struct {
		name    string
		data    []byte
		max     int64
		wantErr string
	}{
		{"good", pgm, 100, ""},
		{"with trailing bytes", append(append([]byte{}, pgm...), 9, 9), 100, ""},
		{"cut short", pgm[:len(pgm)-1], 100, "cut short"},
		{"not a PGM", []byte("P6\n3 2\n255\n"), 100, "not a binary PGM"},
		{"16-bit", []byte("P5\n3 2\n65535\n"), 100, "cannot be read"},
		{"too many pixels", pgm, 5, "cannot be read"},
		{"empty", nil, 100, "not a binary PGM"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, err := DecodePGM(tc.data, tc.max)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, image.Rect(0, 0, 3, 2), g.Bounds())
			require.Equal(t, uint8(4), g.GrayAt(0, 1).Y)
		})
	}
}

// FuzzDecodePGM: any bytes decode to a gray image of their declared size within the bound, or
// are refused, without a panic; a decoded image is turned, measured and cleared of rules
// without one too.
func FuzzDecodePGM(f *testing.F) {
	f.Add([]byte("P5\n3 2\n255\n\x01\x02\x03\x04\x05\x06"))
	f.Add([]byte("P5 1 1 255 \xff"))
	f.Add([]byte("P5\n-3 2\n255\n"))
	f.Add([]byte("P5\n99999999 99999999\n255\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := DecodePGM(data, 64*64)
		if err != nil {
			return
		}
		if n := g.Bounds().Dx() * g.Bounds().Dy(); n > 64*64 || n > len(g.Pix) {
			t.Fatalf("a %v image over %d pixels", g.Bounds(), len(g.Pix))
		}
		_ = Skew(g)
		eraseRules(Rotate(g, 2.5), 300)
	})
}

// TestQuarterTurns: a quarter turn clockwise puts the top left corner at the top right, and
// four of them give the page back.
func TestQuarterTurns(t *testing.T) {
	t.Parallel()
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{1, 2, 3, 4, 5, 6}) // 1 2 3 / 4 5 6
	cases := []struct {
		n    int
		w, h int
		pix  []uint8
	}{
		{0, 3, 2, []uint8{1, 2, 3, 4, 5, 6}},
		{1, 2, 3, []uint8{4, 1, 5, 2, 6, 3}},
		{2, 3, 2, []uint8{6, 5, 4, 3, 2, 1}},
		{3, 2, 3, []uint8{3, 6, 2, 5, 1, 4}},
		{-1, 2, 3, []uint8{3, 6, 2, 5, 1, 4}},
	}
	for _, tc := range cases {
		got := quarterTurns(g, tc.n)
		require.Equal(t, image.Rect(0, 0, tc.w, tc.h), got.Bounds(), "n=%d", tc.n)
		require.Equal(t, tc.pix, got.Pix, "n=%d", tc.n)
	}
	require.Equal(t, g.Pix, quarterTurns(quarterTurns(quarterTurns(quarterTurns(g, 1), 1), 1), 1).Pix)
}

// TestParseOrientation: Tesseract's OSD report gives the clockwise turn that stands the page
// up, and nothing when it is unsure or says something else.
func TestParseOrientation(t *testing.T) {
	t.Parallel()
	report := func(rotate string, conf string) []byte {
		return []byte("Page number: 0\nOrientation in degrees: 90\nRotate: " + rotate + "\nOrientation confidence: " + conf + "\nScript: Latin\nScript confidence: 2.06\n")
	}
	cases := []struct {
		name string
		out  []byte
		want int
	}{
		{"upside down", report("180", "13.96"), 180},
		{"on its side", report("270", "9.69"), 270},
		{"the other side", report("90", "5.1"), 90},
		{"upright", report("0", "10.74"), 0},
		{"unsure", report("180", "0.4"), 0},
		{"a turn that is no quarter", report("45", "12"), 0},
		{"nothing", nil, 0},
		{"garbage", []byte("Rotate: x\nOrientation confidence: y"), 0},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, parseOrientation(tc.out), tc.name)
	}
}

// TestToSource: a mark on a page turned upright and levelled as Prepare turns it is found, by
// ToSource, where it stood on the page as it came, whatever the turns.
func TestToSource(t *testing.T) {
	t.Parallel()
	const w, h, x0, y0 = 400, 300, 300, 60
	for _, quarters := range []int{0, 1, 2, 3} {
		for _, level := range []float64{0, -2.5, 1.2} {
			t.Run(fmt.Sprintf("%d quarters, %.1f degrees", quarters, level), func(t *testing.T) {
				t.Parallel()
				src := blankPage(w, h, 255)
				fillRect(src, x0-3, y0-3, x0+3, y0+3, 0)
				g := quarterTurns(src, quarters)
				if level != 0 {
					g = Rotate(g, level)
				}
				x, y := darkCentre(g)
				p := Page{Width: g.Rect.Dx(), Height: g.Rect.Dy(), Placed: Placement{Width: w, Height: h, Quarters: quarters, Level: level}}
				sx, sy := p.ToSource(x, y)
				require.InDelta(t, x0, sx, 1, "x")
				require.InDelta(t, y0, sy, 1, "y")
				sw, sh := p.SourceSize()
				require.Equal(t, [2]int{w, h}, [2]int{sw, sh})
			})
		}
	}
}

// darkCentre is the centre of g's dark pixels, in continuous coordinates.
func darkCentre(g *image.Gray) (float64, float64) {
	var sx, sy, n float64
	for y := 0; y < g.Rect.Dy(); y++ {
		for x := 0; x < g.Rect.Dx(); x++ {
			if d := 255 - float64(g.Pix[y*g.Stride+x]); d > 0 {
				sx += d * (float64(x) + 0.5)
				sy += d * (float64(y) + 0.5)
				n += d
			}
		}
	}
	return sx / n, sy / n
}
