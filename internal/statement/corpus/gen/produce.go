package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement/corpus"
)

func fixed(d *decimal.Decimal, places int32) *string {
	if d == nil {
		return nil
	}
	s := d.StringFixed(places)
	return &s
}

// producers runs the real PDF producers in a work directory.
type producers struct {
	work string
}

func (p *producers) path(layout, ext string) string { return filepath.Join(p.work, layout+ext) }

// run runs a command with a time limit and returns its error with its output.
func run(dir string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := out.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail)
	}
	return nil
}

// writeInputs writes the producers' inputs of one statement: HTML, groff and LaTeX sources.
func (p *producers) writeInputs(s *stmt) {
	must(os.WriteFile(p.path(s.layout, ".html"), []byte(renderHTML(s.doc)), 0o644))
	must(os.WriteFile(p.path(s.layout, ".ms"), []byte(renderGroff(s.doc)), 0o644))
	must(os.WriteFile(p.path(s.layout+"-pdflatex", ".tex"), []byte(renderLaTeX(s.doc, false)), 0o644))
	must(os.WriteFile(p.path(s.layout+"-xelatex", ".tex"), []byte(renderLaTeX(s.doc, true)), 0o644))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// libreoffice converts the layouts' HTML to PDF in one LibreOffice start, imported into Writer
// (Writer/Web's own PDF export starts with a blank page), with a private profile so that it
// does not meet another running instance.
func (p *producers) libreoffice(layouts []string) error {
	if len(layouts) == 0 {
		return nil
	}
	dir := filepath.Join(p.work, "lo")
	must(os.MkdirAll(dir, 0o755))
	args := []string{"-env:UserInstallation=file://" + filepath.Join(p.work, "lo-profile"), "--headless", "--norestore",
		"--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export", "--outdir", dir}
	for _, l := range layouts {
		args = append(args, p.path(l, ".html"))
	}
	if err := run(p.work, "soffice", args...); err != nil {
		return err
	}
	for _, l := range layouts {
		if err := os.Rename(filepath.Join(dir, l+".pdf"), p.path(l+"-libreoffice", ".pdf")); err != nil {
			return fmt.Errorf("libreoffice wrote no PDF for %s: %w", l, err)
		}
	}
	return nil
}

// base returns the producer's own PDF of the statement, rendering it on first use.
func (p *producers) base(s *stmt, producer string) (string, error) {
	out := p.path(s.layout+"-"+producer, ".pdf")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	switch producer {
	case "chromium":
		prof, err := os.MkdirTemp(p.work, "chromium-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(prof)
		err = run(p.work, "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+prof, "--print-to-pdf="+out, "--no-pdf-header-footer", "file://"+p.path(s.layout, ".html"))
		if err != nil {
			return "", err
		}
	case "groff":
		ps := p.path(s.layout, ".ps")
		args := []string{"-k", "-t", "-ms", "-Tps"}
		if !s.doc.Letter {
			args = append(args, "-dpaper=a4", "-P-pa4")
		}
		cmd := exec.Command("groff", append(args, p.path(s.layout, ".ms"))...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("groff: %v: %s", err, stderr.String())
		}
		must(os.WriteFile(ps, b, 0o644))
		paper := "a4"
		if s.doc.Letter {
			paper = "letter"
		}
		if err := run(p.work, "ps2pdf", "-sPAPERSIZE="+paper, ps, out); err != nil {
			return "", err
		}
	case "pdflatex", "xelatex":
		tex := s.layout + "-" + producer + ".tex"
		// Twice: longtable settles its column widths on the second run.
		for range 2 {
			if err := run(p.work, producer, "-interaction=nonstopmode", "-halt-on-error", tex); err != nil {
				return "", err
			}
		}
	default:
		return "", fmt.Errorf("no such producer %q", producer)
	}
	if _, err := os.Stat(out); err != nil {
		return "", fmt.Errorf("%s wrote no PDF: %w", producer, err)
	}
	return out, nil
}

// derive writes dst from the producer's PDF src as the variant says, and returns the user
// password dst needs ("" for none).
func (p *producers) derive(src, dst, variant string) (string, error) {
	tmp := dst + ".tmp"
	defer os.Remove(tmp)
	switch variant {
	case "":
		return "", copyFile(src, dst)
	case "gs":
		// Ghostscript re-distilling: new fonts, encodings and object layout.
		return "", run(p.work, "gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", "-o", dst, src)
	case "linearized":
		return "", qpdf("--linearize", src, dst)
	case "objstm":
		return "", qpdf("--object-streams=generate", src, dst)
	case "owner-encrypted":
		return "", qpdf("--encrypt", "", "owner-secret", "256", "--", src, dst)
	case "user-encrypted":
		return password, qpdf("--encrypt", password, "owner-secret", "256", "--", src, dst)
	case "user-encrypted-rc4-40", "user-encrypted-rc4-128", "user-encrypted-aes-128":
		// The older algorithms many banks' generators still use; qpdf writes them only when told.
		bits, aes := "128", "--use-aes=y"
		switch variant {
		case "user-encrypted-rc4-40":
			bits, aes = "40", ""
		case "user-encrypted-rc4-128":
			aes = "--use-aes=n"
		}
		args := []string{"--allow-weak-crypto", "--encrypt", password, "owner-secret", bits}
		if aes != "" {
			args = append(args, aes)
		}
		return password, qpdf(append(args, "--", src, dst)...)
	case "linearized-incremental":
		if err := qpdf("--linearize", src, tmp); err != nil {
			return "", err
		}
		b, err := os.ReadFile(tmp)
		if err != nil {
			return "", err
		}
		b, err = appendUpdate(b)
		if err != nil {
			return "", err
		}
		return "", os.WriteFile(dst, b, 0o644)
	case "damaged-xref-shift", "damaged-xref-truncated", "damaged-xref-garbled", "damaged-junk":
		b, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		b, err = damage(b, variant)
		if err != nil {
			return "", err
		}
		return "", os.WriteFile(dst, b, 0o644)
	}
	return "", fmt.Errorf("no such variant %q", variant)
}

func qpdf(args ...string) error {
	// qpdf exits 3 for warnings; the output is written all the same.
	cmd := exec.Command("qpdf", args...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("qpdf %v: %v: %s", args, err, out)
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// popplerOpens reports whether pdftotext reads the file (with the user password, if any).
func popplerOpens(path, pw string) bool {
	args := []string{"-q"}
	if pw != "" {
		args = append(args, "-upw", pw)
	}
	cmd := exec.Command("pdftotext", append(args, path, "-")...)
	out, err := cmd.Output()
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

var (
	startxrefRe = regexp.MustCompile(`startxref\s+(\d+)\s+%%EOF\s*$`)
	xrefRe      = regexp.MustCompile(`(?m)^xref\r?\n`)
	rootRe      = regexp.MustCompile(`/Root\s+(\d+\s+\d+\s+R)`)
	sizeRe      = regexp.MustCompile(`/Size\s+(\d+)`)
)

// damage makes the damaged-but-repairable copies that real files show: offsets that all point
// a few bytes off (bytes inserted after the header by a mail gateway), a cross-reference table
// cut short, garbled entries and a wrong startxref, mail or HTTP junk before %PDF and after
// %%EOF.
func damage(b []byte, variant string) ([]byte, error) {
	switch variant {
	case "damaged-xref-shift":
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("no header line")
		}
		ins := []byte("% inserted by a mail gateway: every offset is now wrong\n")
		return append(append(append([]byte{}, b[:nl+1]...), ins...), b[nl+1:]...), nil
	case "damaged-xref-truncated", "damaged-xref-garbled":
		locs := xrefRe.FindAllIndex(b, -1)
		if len(locs) == 0 {
			return nil, fmt.Errorf("no classic xref table to damage")
		}
		at := locs[len(locs)-1][1]
		tr := bytes.Index(b[at:], []byte("trailer"))
		if tr < 0 {
			return nil, fmt.Errorf("no trailer")
		}
		lines := strings.Split(string(b[at:at+tr]), "\n")
		if variant == "damaged-xref-truncated" {
			// Keep the subsection header and the first third of the entries.
			lines = append(lines[:1+len(lines)/3], "")
		} else {
			for i := 2; i < len(lines); i += 3 {
				if len(lines[i]) >= 10 {
					lines[i] = "00000" + lines[i][5:]
				}
			}
		}
		out := append(append(append([]byte{}, b[:at]...), strings.Join(lines, "\n")...), b[at+tr:]...)
		if variant == "damaged-xref-garbled" {
			m := startxrefRe.FindSubmatchIndex(out)
			if m == nil {
				return nil, fmt.Errorf("no startxref")
			}
			n, _ := strconv.Atoi(string(out[m[2]:m[3]]))
			out = append(append(append([]byte{}, out[:m[2]]...), strconv.Itoa(n+17)...), out[m[3]:]...)
		}
		return out, nil
	case "damaged-junk":
		head := "Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"statement.pdf\"\r\n\r\n"
		tail := "\r\n------=_Part_1843_20231101.1698\r\n<!-- portal export 2023-11-01 --></html>\r\n"
		return append(append([]byte(head), b...), tail...), nil
	}
	return nil, fmt.Errorf("no such damage %q", variant)
}

// appendUpdate appends an incremental update (a new document information dictionary) after a
// linearized file, as an editing or signing tool does: the linearization is then stale and
// the last xref section chains back with /Prev.
func appendUpdate(b []byte) ([]byte, error) {
	m := startxrefRe.FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("no startxref")
	}
	prev := string(m[1])
	root := rootRe.FindSubmatch(b)
	size := sizeRe.FindSubmatch(b)
	if root == nil || size == nil {
		return nil, fmt.Errorf("no /Root or /Size in the trailer")
	}
	n, _ := strconv.Atoi(string(size[1]))
	var u bytes.Buffer
	u.Write(b)
	if !bytes.HasSuffix(b, []byte("\n")) {
		u.WriteByte('\n')
	}
	off := u.Len()
	fmt.Fprintf(&u, "%d 0 obj\n<< /Producer (Statement portal 4.2) /ModDate (D:20231101120000Z) >>\nendobj\n", n)
	xref := u.Len()
	fmt.Fprintf(&u, "xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %s >>\nstartxref\n%d\n%%%%EOF\n",
		n, off, n+1, root[1], n, prev, xref)
	return u.Bytes(), nil
}

var (
	pageRe = regexp.MustCompile(`<page width="([\d.]+)" height="([\d.]+)">`)
	wordRe = regexp.MustCompile(`<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>`)
)

// offPage returns the words that pdftotext finds outside the page: a table too wide for the
// page would put amounts of the key where no reader sees them.
func offPage(path string) ([]string, error) {
	out, err := exec.Command("pdftotext", "-q", "-bbox", path, "-").Output()
	if err != nil {
		return nil, err
	}
	var bad []string
	var w, h float64
	for _, line := range strings.Split(string(out), "\n") {
		if m := pageRe.FindStringSubmatch(line); m != nil {
			w, _ = strconv.ParseFloat(m[1], 64)
			h, _ = strconv.ParseFloat(m[2], 64)
			continue
		}
		if m := wordRe.FindStringSubmatch(line); m != nil {
			x0, _ := strconv.ParseFloat(m[1], 64)
			y0, _ := strconv.ParseFloat(m[2], 64)
			x1, _ := strconv.ParseFloat(m[3], 64)
			y1, _ := strconv.ParseFloat(m[4], 64)
			if x0 < 0 || y0 < 0 || x1 > w+0.5 || y1 > h+0.5 {
				bad = append(bad, m[5])
			}
		}
	}
	return bad, nil
}

// sameStatement reports whether the previous corpus file old has the key key and the same
// extracted text (and layout) as the new file dst.
func sameStatement(old, dst string, key []byte, pw string) bool {
	k, err := os.ReadFile(corpus.KeyPath(old))
	if err != nil || !bytes.Equal(k, key) {
		return false
	}
	text := func(path string) []byte {
		args := []string{"-q", "-layout"}
		if pw != "" {
			args = append(args, "-upw", pw)
		}
		out, err := exec.Command("pdftotext", append(args, path, "-")...).Output()
		if err != nil {
			return nil
		}
		return out
	}
	a, b := text(old), text(dst)
	return a != nil && bytes.Equal(a, b)
}

// digitProfile counts the digits (0-9 in Latin, Arabic-Indic and Persian forms, by value) in the
// text pdftotext extracts from path. A copy whose profile differs from its producer's own file
// has had its text encoding garbled (Ghostscript re-distilling does this to Persian digits),
// so no reader of its text could meet the key.
func digitProfile(path, pw string) ([10]int, error) {
	var n [10]int
	args := []string{"-q"}
	if pw != "" {
		args = append(args, "-upw", pw)
	}
	out, err := exec.Command("pdftotext", append(args, path, "-")...).Output()
	if err != nil {
		return n, err
	}
	for _, r := range string(out) {
		for _, zero := range []rune{'0', '\u0660', '\u06F0'} {
			if r >= zero && r <= zero+9 {
				n[r-zero]++
			}
		}
	}
	return n, nil
}
