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
	paper := paperOf(g, 1)
	ink := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := paper.at(x, y)
			ink[y*w+x] = p >= 96 && int(g.Pix[y*g.Stride+x]) < int(p)*ruleInk/100
		}
	}
	thick := max(2, int(math.Round(maxRuleInches*dpi)))
	long := int(math.Round(minRuleInches * dpi))
	gap := max(1, int(math.Round(ruleGapInches*dpi)))
	// across[i]: the ink at i is thin up and down (at most thick pixels): it may be part of a
	// rule across the page. down[i]: thin across, part of a rule down it.
	across := thinRuns(ink, w, h, thick, true)
	down := thinRuns(ink, w, h, thick, false)
	erase := make([]bool, w*h)
	markLines(ink, across, erase, w, h, long, gap, true)
	markLines(ink, down, erase, w, h, long, gap, false)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !erase[y*w+x] {
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

// thinRuns marks the ink whose run across the other way is at most thick pixels: for across,
// the vertical run through each pixel; otherwise the horizontal one.
func thinRuns(ink []bool, w, h, thick int, across bool) []bool {
	thin := make([]bool, w*h)
	outer, inner := w, h
	idx := func(o, i int) int { return i*w + o }
	if !across {
		outer, inner = h, w
		idx = func(o, i int) int { return o*w + i }
	}
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; {
			if !ink[idx(o, i)] {
				i++
				continue
			}
			j := i
			for j < inner && ink[idx(o, j)] {
				j++
			}
			if j-i <= thick {
				for k := i; k < j; k++ {
					thin[idx(o, k)] = true
				}
			}
			i = j
		}
	}
	return thin
}

// markLines marks in erase the thin ink of the lines of ink at least long pixels long (breaks
// of at most gap pixels bridged), along rows for across and columns otherwise. A letter that
// touches a rule makes the ink thick where it does, and does not break the line; a line most of
// whose ink is thick is print, not a rule.
func markLines(ink, thin, erase []bool, w, h, long, gap int, across bool) {
	outer, inner := h, w
	idx := func(o, i int) int { return o*w + i }
	if !across {
		outer, inner = w, h
		idx = func(o, i int) int { return i*w + o }
	}
	for o := 0; o < outer; o++ {
		start, last, thins := -1, -1, 0
		flush := func() {
			if start >= 0 && last-start+1 >= long && 2*thins >= last-start+1 {
				for k := start; k <= last; k++ {
					if thin[idx(o, k)] {
						erase[idx(o, k)] = true
					}
				}
			}
		}
		for i := 0; i < inner; i++ {
			if !ink[idx(o, i)] {
				continue
			}
			if start < 0 || i-last > gap+1 {
				flush()
				start, thins = i, 0
			}
			last = i
			if thin[idx(o, i)] {
				thins++
			}
		}
		flush()
	}
}

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
