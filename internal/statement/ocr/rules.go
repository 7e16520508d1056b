package ocr

import (
	"image"
	"math"
)

// eraseRules paints the ruled lines of a page image (a table's borders, the rule under its
// header, underlines) the colour of the paper around them. Tesseract takes a long rule for a
// separator and drops the words that touch it: the header of a ruled table and the first row
// under it went missing. A rule is a line of thin ink at least minRuleInches long, across or
// down the page; where a letter crosses it the ink is thick and is kept.
func eraseRules(g *image.Gray, dpi float64) {
	if dpi <= 0 {
		dpi = 300
	}
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return
	}
	thick := min(250, max(2, int(math.Round(maxRuleInches*dpi))))
	long := int(math.Round(minRuleInches * dpi))
	gap := max(1, int(math.Round(ruleGapInches*dpi)))
	paper := paperOf(g, 1)
	// One byte of flags a pixel, and every pass row by row: the page is millions of pixels.
	px := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		flags := px[y*w : (y+1)*w]
		for bx := 0; bx*paper.block < w; bx++ {
			p := paper.v[(y/paper.block)*paper.cols+bx]
			if p < 96 {
				continue
			}
			limit := uint8(int(p) * ruleInk / 100)
			for x := bx * paper.block; x < min(w, (bx+1)*paper.block); x++ {
				if row[x] < limit {
					flags[x] = isInk
				}
			}
		}
	}
	markThin(px, w, h, thick)
	markRules(px, w, h, long, gap)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if px[y*w+x]&isRule == 0 {
				continue
			}
			p := paper.at(x, y)
			g.Pix[y*g.Stride+x] = p
			// The rule's soft edges, a light gray, go with it; the dark strokes of a letter
			// beside it stay.
			soft := uint8(int(p) * ruleEdge / 100)
			for d := -3; d <= 3; d++ {
				if yy := y + d; d != 0 && yy >= 0 && yy < h && g.Pix[yy*g.Stride+x] > soft {
					g.Pix[yy*g.Stride+x] = p
				}
				if xx := x + d; d != 0 && xx >= 0 && xx < w && g.Pix[y*g.Stride+xx] > soft {
					g.Pix[y*g.Stride+xx] = p
				}
			}
		}
	}
}

// The flags of a pixel in eraseRules.
const (
	isInk = 1 << iota
	// thinAcross: ink at most a rule's thickness up and down: it may be part of a rule across
	// the page. thinDown: at most that thick across, part of a rule down the page.
	thinAcross
	thinDown
	isRule
)

// markThin flags the ink whose run the other way is at most thick pixels.
func markThin(px []uint8, w, h, thick int) {
	// Across a row: the horizontal runs.
	for y := 0; y < h; y++ {
		row := px[y*w : (y+1)*w]
		for x := 0; x < w; {
			if row[x]&isInk == 0 {
				x++
				continue
			}
			e := x
			for e < w && row[e]&isInk != 0 {
				e++
			}
			if e-x <= thick {
				for k := x; k < e; k++ {
					row[k] |= thinDown
				}
			}
			x = e
		}
	}
	// Down a column: the vertical runs, counted from above in one pass and from below in
	// another.
	up := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if px[i]&isInk != 0 {
				up[i] = 1
				if y > 0 && up[i-w] < 255 {
					up[i] += up[i-w]
				}
			}
		}
	}
	down := make([]uint8, w)
	for y := h - 1; y >= 0; y-- {
		for x := 0; x < w; x++ {
			i := y*w + x
			if px[i]&isInk == 0 {
				down[x] = 0
				continue
			}
			if down[x] < 255 {
				down[x]++
			}
			if int(up[i])+int(down[x])-1 <= thick {
				px[i] |= thinAcross
			}
		}
	}
}

// markRules flags as rule the thin ink of the lines of ink at least long pixels long (breaks of
// at most gap pixels bridged), across the page and down it. A letter that touches a rule makes
// the ink thick where it does, and does not break the line; a line most of whose ink is thick
// is print, not a rule.
func markRules(px []uint8, w, h, long, gap int) {
	// Across: each row in turn.
	for y := 0; y < h; y++ {
		row := px[y*w : (y+1)*w]
		start, last, thins := -1, -1, 0
		flush := func() {
			if start >= 0 && last-start+1 >= long && 2*thins >= last-start+1 {
				for k := start; k <= last; k++ {
					if row[k]&thinAcross != 0 {
						row[k] |= isRule
					}
				}
			}
		}
		for x := 0; x < w; x++ {
			if row[x]&isInk == 0 {
				continue
			}
			if start < 0 || x-last > gap+1 {
				flush()
				start, thins = x, 0
			}
			last = x
			if row[x]&thinAcross != 0 {
				thins++
			}
		}
		flush()
	}
	// Down: every column at once, row by row, each with its line so far.
	start, last, thins := make([]int32, w), make([]int32, w), make([]int32, w)
	for x := range start {
		start[x] = -1
	}
	flush := func(x int) {
		s, l := int(start[x]), int(last[x])
		if s >= 0 && l-s+1 >= long && 2*int(thins[x]) >= l-s+1 {
			for k := s; k <= l; k++ {
				if px[k*w+x]&thinDown != 0 {
					px[k*w+x] |= isRule
				}
			}
		}
	}
	for y := 0; y < h; y++ {
		row := px[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			if row[x]&isInk == 0 {
				continue
			}
			if start[x] < 0 || y-int(last[x]) > gap+1 {
				flush(x)
				start[x], thins[x] = int32(y), 0
			}
			last[x] = int32(y)
			if row[x]&thinDown != 0 {
				thins[x]++
			}
		}
	}
	for x := 0; x < w; x++ {
		flush(x)
	}
}

const (
	// ruleInk is how dark, in percent of the paper around it, a rule's pixels are at most: a
	// hairline rule, blurred by a scan, is no darker than a mid gray.
	ruleInk = 80
	// ruleEdge is the gray, in percent of the paper, above which a pixel beside a rule is the
	// rule's blurred edge rather than a letter's stroke.
	ruleEdge = 60
	// maxRuleInches is the thickest rule: half a point is 0.007 inches; the blur of a cheap scan, enlarged, triples it.
	maxRuleInches = 0.03
	// minRuleInches is the shortest rule: no stroke of a letter or run of touching letters
	// at the thickness of a rule is this long.
	minRuleInches = 0.5
	// ruleGapInches is the longest break in a rule that a scan's noise makes.
	ruleGapInches = 0.01
)

// paperMap is the brightness of the paper around each block of a page image.
type paperMap struct {
	block, cols int
	v           []uint8
}

func (m paperMap) at(x, y int) uint8 { return m.v[(y/m.block)*m.cols+x/m.block] }

// paperOf estimates the paper's brightness block by block: the brightest pixel (sampled every
// step pixels) of the block and its neighbours, so that a block inside a thick stroke or a dark
// box still sees paper.
func paperOf(g *image.Gray, step int) paperMap {
	const block = 48
	b := g.Bounds()
	bw, bh := (b.Dx()+block-1)/block, (b.Dy()+block-1)/block
	bright := make([]uint8, bw*bh)
	for y := 0; y < b.Dy(); y += step {
		row := g.Pix[y*g.Stride:]
		by := y / block
		for x := 0; x < b.Dx(); x += step {
			if v := row[x]; v > bright[by*bw+x/block] {
				bright[by*bw+x/block] = v
			}
		}
	}
	paper := make([]uint8, len(bright))
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			var m uint8
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if x, y := bx+dx, by+dy; x >= 0 && y >= 0 && x < bw && y < bh && bright[y*bw+x] > m {
						m = bright[y*bw+x]
					}
				}
			}
			paper[by*bw+bx] = m
		}
	}
	return paperMap{block: block, cols: bw, v: paper}
}
