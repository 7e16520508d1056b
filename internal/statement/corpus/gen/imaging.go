package main

// The image work of the scans: skew, sensor noise, blur and a scanner's white point on gray
// pages; a page photographed on a desk; and the two container files scanners write that Go's
// standard library does not: a multi-page TIFF and an image-only PDF.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/draw"
	"math"
	"math/rand/v2"
	"slices"
)

func clamp8(v float64) uint8 {
	return uint8(math.Round(max(0, min(255, v))))
}

// rotateGray turns the page by deg degrees about its centre, inside the same frame, with bilinear
// sampling; what comes in at the corners is bg.
func rotateGray(src *image.Gray, deg float64, bg uint8) *image.Gray {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dst := image.NewGray(image.Rect(0, 0, w, h))
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	for y := range h {
		for x := range w {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cos*dx+sin*dy+cx, -sin*dx+cos*dy+cy
			dst.Pix[y*dst.Stride+x] = clamp8(bilinear(sx, sy, w, h, float64(bg), func(x, y int) float64 {
				return float64(src.Pix[(y)*src.Stride+x])
			}))
		}
	}
	return dst
}

// bilinear samples at (x, y) a w×h image whose pixels at returns; outside it is bg.
func bilinear(x, y float64, w, h int, bg float64, at func(x, y int) float64) float64 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	px := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return bg
		}
		return at(x, y)
	}
	top := px(x0, y0)*(1-fx) + px(x0+1, y0)*fx
	bot := px(x0, y0+1)*(1-fx) + px(x0+1, y0+1)*fx
	return top*(1-fy) + bot*fy
}

// addNoise adds Gaussian noise of standard deviation sigma to every pixel.
func addNoise(r *rand.Rand, g *image.Gray, sigma float64) {
	for i, v := range g.Pix {
		g.Pix[i] = clamp8(float64(v) + r.NormFloat64()*sigma)
	}
}

// levels maps black and below to 0 and white and above to 255, as a scanner's black and white
// points do: the paper's noise mostly becomes white again.
func levels(g *image.Gray, black, white float64) {
	for i, v := range g.Pix {
		g.Pix[i] = clamp8((float64(v) - black) * 255 / (white - black))
	}
}

// posterize keeps n evenly spaced gray levels, 0 and 255 among them.
func posterize(g *image.Gray, n int) {
	step := 255 / float64(n-1)
	for i, v := range g.Pix {
		g.Pix[i] = clamp8(math.Round(float64(v)/step) * step)
	}
}

// blurGray softens the page with a 3×3 binomial kernel.
func blurGray(g *image.Gray) {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	blur3(w, h, 1, g.Pix, g.Stride)
}

// blur3 applies the kernel [1 2 1]/4 along rows, then along columns, to n-channel pixels
// (channels beyond the third, alpha, are left alone).
func blur3(w, h, n int, pix []uint8, stride int) {
	ch := min(n, 3)
	tmp := make([]uint16, len(pix))
	for y := range h {
		for x := range w {
			l, r := max(x-1, 0), min(x+1, w-1)
			for c := range ch {
				o := y*stride + c
				tmp[o+x*n] = uint16(pix[o+l*n]) + 2*uint16(pix[o+x*n]) + uint16(pix[o+r*n])
			}
		}
	}
	for y := range h {
		u, d := max(y-1, 0), min(y+1, h-1)
		for x := range w {
			for c := range ch {
				o := x*n + c
				s := tmp[u*stride+o] + 2*tmp[y*stride+o] + tmp[d*stride+o]
				pix[y*stride+o] = uint8((s + 8) / 16)
			}
		}
	}
}

// photograph puts the page on a desk and takes it with a phone: a margin of desk around it, the
// page turned and seen in perspective (the top farther than the bottom), light falling off
// across the picture, sensor noise and a slight softness.
func photograph(r *rand.Rand, page image.Image) *image.RGBA {
	src := image.NewRGBA(image.Rect(0, 0, page.Bounds().Dx(), page.Bounds().Dy()))
	draw.Draw(src, src.Bounds(), page, page.Bounds().Min, draw.Src)
	w, h := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
	mx, my := math.Round(0.08*w), math.Round(0.06*h)
	cw, chh := int(w+2*mx), int(h+2*my)
	// Where the page's corners land in the picture: inset at the top for the tilt, jittered,
	// turned about the centre.
	tilt := (0.01 + 0.02*r.Float64()) * w
	corners := [4][2]float64{{mx + tilt, my}, {mx + w - tilt, my}, {mx + w, my + h}, {mx, my + h}}
	sin, cos := math.Sincos(signed(r, 0.5, 2) * math.Pi / 180)
	ccx, ccy := float64(cw)/2, float64(chh)/2
	var dst [4][2]float64
	for i, c := range corners {
		x := c[0] + signed(r, 0, 0.008)*w - ccx
		y := c[1] + signed(r, 0, 0.006)*h - ccy
		dst[i] = [2]float64{cos*x - sin*y + ccx, sin*x + cos*y + ccy}
	}
	hm := homography(dst, [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}})
	desks := [][3]float64{{142, 104, 70}, {118, 120, 126}, {64, 66, 74}, {176, 160, 132}}
	desk := desks[r.IntN(len(desks))]
	paper := [3]float64{0.96, 0.95, 0.91}
	// Light: brightest at a random point near the top, falling off to about three quarters.
	lx, ly := r.Float64()*float64(cw), r.Float64()*float64(chh)/3
	fall := 0.2 + 0.1*r.Float64()
	diag := math.Hypot(float64(cw), float64(chh))
	out := image.NewRGBA(image.Rect(0, 0, cw, chh))
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	for y := range chh {
		for x := range cw {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			d := hm[6]*fx + hm[7]*fy + 1
			sx := (hm[0]*fx+hm[1]*fy+hm[2])/d - 0.5
			sy := (hm[3]*fx+hm[4]*fy+hm[5])/d - 0.5
			light := 1.05 - fall*math.Hypot(fx-lx, fy-ly)/diag
			grain := r.NormFloat64() * 2.5
			o := y*out.Stride + x*4
			onPage := sx >= -0.5 && sy >= -0.5 && sx <= float64(sw)-0.5 && sy <= float64(sh)-0.5
			for c := range 3 {
				v := desk[c] * (0.9 + 0.2*fx/float64(cw))
				if onPage {
					v = paper[c] * bilinear(sx, sy, sw, sh, 255, func(x, y int) float64 {
						return float64(src.Pix[y*src.Stride+x*4+c])
					})
				}
				out.Pix[o+c] = clamp8(v*light + grain)
			}
			out.Pix[o+3] = 255
		}
	}
	blur3(cw, chh, 4, out.Pix, out.Stride)
	return out
}

// homography returns the projective map taking the points from to the points to, as
// [a b c d e f g h]: x' = (ax+by+c)/(gx+hy+1), y' = (dx+ey+f)/(gx+hy+1).
func homography(from, to [4][2]float64) [8]float64 {
	var m [8][9]float64
	for i := range 4 {
		x, y, u, v := from[i][0], from[i][1], to[i][0], to[i][1]
		m[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		m[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	// Gaussian elimination with partial pivoting.
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := range 8 {
			if r != c {
				f := m[r][c] / m[c][c]
				for k := c; k < 9; k++ {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	var h [8]float64
	for i := range 8 {
		h[i] = m[i][8] / m[i][i]
	}
	return h
}

// pngDPI adds to a PNG from png.Encode the pHYs chunk of a scanner's resolution, which the
// encoder does not write: the chunk goes after IHDR, the first chunk.
func pngDPI(b []byte, dpi int) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, then IHDR's length, type, data and CRC
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	chunk := binary.BigEndian.AppendUint32(nil, 9)
	chunk = append(chunk, "pHYs"...)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = append(chunk, 1) // unit: metre
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return slices.Concat(b[:ihdrEnd], chunk, b[ihdrEnd:])
}

// multiTIFF writes gray pages as one little-endian TIFF, a page per image file directory, each
// page one Deflate-compressed strip with horizontal differencing, at dpi.
func multiTIFF(pages []*image.Gray, dpi int) ([]byte, error) {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write([]byte{'I', 'I', 42, 0, 0, 0, 0, 0})
	next := 4 // where the offset of the next IFD is written
	for i, g := range pages {
		w, h := g.Bounds().Dx(), g.Bounds().Dy()
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		row := make([]byte, w)
		for y := range h {
			line := g.Pix[y*g.Stride : y*g.Stride+w]
			row[0] = line[0]
			for x := 1; x < w; x++ {
				row[x] = line[x] - line[x-1]
			}
			zw.Write(row)
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		data := b.Len()
		b.Write(z.Bytes())
		if b.Len()%2 == 1 {
			b.WriteByte(0)
		}
		res := b.Len()
		for range 2 {
			binary.Write(&b, le, [2]uint32{uint32(dpi), 1})
		}
		ifd := b.Len()
		le.PutUint32(b.Bytes()[next:], uint32(ifd))
		type entry struct {
			tag, typ uint16
			count    uint32
			value    uint32
		}
		const short, long, rational = 3, 4, 5
		entries := []entry{
			{256, long, 1, uint32(w)},
			{257, long, 1, uint32(h)},
			{258, short, 1, 8},                                  // BitsPerSample
			{259, short, 1, 8},                                  // Compression: Deflate
			{262, short, 1, 1},                                  // Photometric: black is zero
			{273, long, 1, uint32(data)},                        // StripOffsets
			{277, short, 1, 1},                                  // SamplesPerPixel
			{278, long, 1, uint32(h)},                           // RowsPerStrip
			{279, long, 1, uint32(z.Len())},                     // StripByteCounts
			{282, rational, 1, uint32(res)},                     // XResolution
			{283, rational, 1, uint32(res + 8)},                 // YResolution
			{296, short, 1, 2},                                  // ResolutionUnit: inch
			{297, short, 2, uint32(i) | uint32(len(pages))<<16}, // PageNumber
			{317, short, 1, 2},                                  // Predictor: horizontal differencing
		}
		binary.Write(&b, le, uint16(len(entries)))
		for _, e := range entries {
			binary.Write(&b, le, e)
		}
		next = b.Len()
		binary.Write(&b, le, uint32(0))
	}
	return b.Bytes(), nil
}

// imagePDF writes a PDF as a scanner does: a page per JPEG, the image filling a page of its
// size at dpi, and no text.
func imagePDF(jpegs [][]byte, sizes []image.Point, dpi int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s", len(offsets), body)
		if stream != nil {
			fmt.Fprintf(&b, "\nstream\n%s\nendstream", stream)
		}
		b.WriteString("\nendobj\n")
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	kids := ""
	for i := range jpegs {
		kids += fmt.Sprintf("%d 0 R ", 3+3*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(jpegs)), nil)
	for i, j := range jpegs {
		w, h := sizes[i].X, sizes[i].Y
		pw, ph := float64(w)*72/float64(dpi), float64(h)*72/float64(dpi)
		content := fmt.Sprintf("q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q", pw, ph)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>",
			pw, ph, 5+3*i, 4+3*i), nil)
		obj(fmt.Sprintf("<< /Length %d >>", len(content)), []byte(content))
		obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>",
			w, h, len(j)), j)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
