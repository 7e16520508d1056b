package ocr

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
)

// The largest skew, in degrees, that is looked for and undone. A page fed askew through a
// scanner, or photographed by hand, is turned by a few degrees; more is a page on its side,
// which is not a skew.
const maxSkew = 6.0

// Skew estimates the angle, in degrees, by which the print of a page image is turned
// (positive: the lines fall to the right, in image coordinates with y down). It is the angle
// whose projection of the ink onto the page's side is sharpest: along the true angle each
// printed line lands in a few rows of the profile and the gaps between lines are empty. 0 when
// the image has too little ink to tell.
//
// Ink is a pixel well darker than the paper around it: the paper's brightness is taken block by
// block, so that uneven light or a dark desk around a photographed page is not ink.
func Skew(g *image.Gray) float64 {
	xs, ys := inkPoints(g)
	if len(xs) < 200 {
		return 0
	}
	best, _ := sharpest(xs, ys, -maxSkew, maxSkew, 0.25)
	fine, _ := sharpest(xs, ys, best-0.25, best+0.25, 0.02)
	return fine
}

// inkStep is the sampling step for ink across the page: every other pixel of a row still finds
// every stroke of print, at half the work.
const inkStep = 2

// inkPoints returns the positions of the ink pixels of g, sampled every inkStep pixels across.
func inkPoints(g *image.Gray) (xs, ys []float64) {
	paper := paperOf(g, inkStep)
	b := g.Bounds()
	// Every row, so that the profile's rows of one pixel are all sampled alike.
	for y := 0; y < b.Dy(); y++ {
		row := g.Pix[y*g.Stride:]
		for x := 0; x < b.Dx(); x += inkStep {
			p := paper.at(x, y)
			if p >= 96 && int(row[x]) < int(p)*55/100 {
				xs = append(xs, float64(x))
				ys = append(ys, float64(y))
			}
		}
	}
	return xs, ys
}

// sharpest returns the angle in [lo, hi], in steps of step degrees, whose projection of the
// points is sharpest, and that sharpness: the sum of the squared differences between
// neighbouring rows of the profile.
func sharpest(xs, ys []float64, lo, hi, step float64) (float64, float64) {
	var minY, maxY, maxX float64
	for i := range xs {
		maxX = math.Max(maxX, xs[i])
		maxY = math.Max(maxY, ys[i])
	}
	pad := maxX*math.Tan(maxSkew*math.Pi/180) + 2
	minY = -pad
	// Rows of one pixel: the ink is sampled every inkStep pixels, but its position is exact.
	rows := int(maxY-minY+pad) + 2
	profile := make([]int, rows)
	bestAngle, bestScore := 0.0, -1.0
	for a := lo; a <= hi+step/2; a += step {
		clear(profile)
		t := math.Tan(a * math.Pi / 180)
		for i := range xs {
			r := int(ys[i] - xs[i]*t - minY)
			if r >= 0 && r < rows {
				profile[r]++
			}
		}
		var score float64
		for r := 1; r < rows; r++ {
			d := float64(profile[r] - profile[r-1])
			score += d * d
		}
		if score > bestScore {
			bestAngle, bestScore = a, score
		}
	}
	return bestAngle, bestScore
}

// Rotate turns g by deg degrees about its centre (positive: clockwise on screen, y down),
// onto a canvas grown to hold all of it, the uncovered corners white.
func Rotate(g *image.Gray, deg float64) *image.Gray {
	b := g.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	rad := deg * math.Pi / 180
	sin, cos := math.Sin(rad), math.Cos(rad)
	nw := int(math.Ceil(w*math.Abs(cos) + h*math.Abs(sin)))
	nh := int(math.Ceil(w*math.Abs(sin) + h*math.Abs(cos)))
	out := image.NewGray(image.Rect(0, 0, nw, nh))
	cx, cy := w/2, h/2
	ncx, ncy := float64(nw)/2, float64(nh)/2
	for y := 0; y < nh; y++ {
		dy := float64(y) + 0.5 - ncy
		dx := 0.5 - ncx
		// The source point that lands on (0, y), by the inverse rotation; each step right
		// moves it by (cos, -sin).
		sx := dx*cos + dy*sin + cx - 0.5
		sy := -dx*sin + dy*cos + cy - 0.5
		row := out.Pix[y*out.Stride : y*out.Stride+nw]
		for x := range row {
			row[x] = sample(g, sx, sy)
			sx += cos
			sy -= sin
		}
	}
	return out
}

// sample is g at (x, y), in pixels from its top left, interpolated from the sixteen pixels
// around it with Catmull-Rom's cubic, which keeps the edges of small print sharper than a
// bilinear blend; white outside g.
func sample(g *image.Gray, x, y float64) uint8 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	// Floors, for the points that matter (a point more than a few pixels outside is white).
	if x < -3 || y < -3 || x > float64(w+2) || y > float64(h+2) {
		return 255
	}
	ix, iy := int(x+4)-4, int(y+4)-4
	inside := ix >= 1 && iy >= 1 && ix+2 < w && iy+2 < h
	if inside {
		// Paper: sixteen pixels of one gray interpolate to that gray (the weights sum to
		// one), and most of a page is paper.
		p := g.Pix[(iy-1)*g.Stride+ix-1:]
		c, same := p[0], true
		for j := 0; j < 4 && same; j++ {
			r := p[j*g.Stride : j*g.Stride+4]
			same = r[0] == c && r[1] == c && r[2] == c && r[3] == c
		}
		if same {
			return c
		}
	}
	wx, wy := cubicWeights(x-float64(ix)), cubicWeights(y-float64(iy))
	var v float64
	if inside {
		p := g.Pix[(iy-1)*g.Stride+ix-1:]
		for j := 0; j < 4; j++ {
			r := p[j*g.Stride : j*g.Stride+4]
			v += wy[j] * (wx[0]*float64(r[0]) + wx[1]*float64(r[1]) + wx[2]*float64(r[2]) + wx[3]*float64(r[3]))
		}
	} else {
		for j := 0; j < 4; j++ {
			yy := iy - 1 + j
			var row float64
			for i := 0; i < 4; i++ {
				xx := ix - 1 + i
				p := 255.0
				if xx >= 0 && yy >= 0 && xx < w && yy < h {
					p = float64(g.Pix[yy*g.Stride+xx])
				}
				row += wx[i] * p
			}
			v += wy[j] * row
		}
	}
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// cubicWeights are Catmull-Rom's weights of the four pixels around a point at fraction t past
// the second.
func cubicWeights(t float64) [4]float64 {
	t2, t3 := t*t, t*t*t
	return [4]float64{
		(-t3 + 2*t2 - t) / 2,
		(3*t3 - 5*t2 + 2) / 2,
		(-3*t3 + 4*t2 + t) / 2,
		(t3 - t2) / 2,
	}
}

// quarterTurns turns g by n quarter turns clockwise (n from 0 to 3), exactly.
func quarterTurns(g *image.Gray, n int) *image.Gray {
	n = ((n % 4) + 4) % 4
	if n == 0 {
		return g
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	ow, oh := h, w
	if n == 2 {
		ow, oh = w, h
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			var nx, ny int
			switch n {
			case 1: // clockwise: the left column becomes the top row
				nx, ny = h-1-y, x
			case 2:
				nx, ny = w-1-x, h-1-y
			case 3:
				nx, ny = y, w-1-x
			}
			out.Pix[ny*out.Stride+nx] = v
		}
	}
	return out
}

// DecodePGM reads a binary PGM of 8-bit gray (what `pdftoppm -gray` writes), at most
// maxPixels pixels.
func DecodePGM(data []byte, maxPixels int64) (*image.Gray, error) {
	var w, h, maxVal int
	r := bytes.NewReader(data)
	var magic string
	if _, err := fmt.Fscan(r, &magic, &w, &h, &maxVal); err != nil || magic != "P5" {
		return nil, errors.New("not a binary PGM image")
	}
	// Each side first: the product of two huge sides overflows.
	if maxVal != 255 || w <= 0 || h <= 0 || int64(w) > maxPixels || int64(h) > maxPixels || int64(w)*int64(h) > maxPixels {
		return nil, fmt.Errorf("a PGM image of %d×%d pixels and %d levels cannot be read", w, h, maxVal)
	}
	// One white-space byte ends the header.
	if _, err := r.ReadByte(); err != nil {
		return nil, errors.New("the PGM image has no pixels")
	}
	start := len(data) - r.Len()
	if len(data)-start < w*h {
		return nil, fmt.Errorf("the PGM image is cut short: %d of %d pixels", len(data)-start, w*h)
	}
	return &image.Gray{Pix: data[start : start+w*h], Stride: w, Rect: image.Rect(0, 0, w, h)}, nil
}
