package main

import (
	"fmt"
	"html"
	"strings"
)

// renderHTML writes the document as an HTML page with CSS tables, the input of Chromium's
// --print-to-pdf and of LibreOffice's HTML import.
func renderHTML(d *Doc) string {
	var b strings.Builder
	dir := "ltr"
	if d.RTL {
		dir = "rtl"
	}
	page := "A4"
	if d.Letter {
		page = "letter"
	}
	font := d.Font
	if font == "" {
		font = "DejaVu Sans"
	}
	start, end := "left", "right"
	if d.RTL {
		start, end = "right", "left"
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="%s" dir="%s"><head><meta charset="utf-8"><title>Statement</title>
<style>
@page { size: %s; margin: 14mm 14mm 18mm 14mm; }
body { font-family: '%s', sans-serif; font-size: 8.5pt; color: #111; }
h1 { font-size: 15pt; margin: 0 0 4pt 0; }
h2 { font-size: 10pt; margin: 10pt 0 3pt 0; border-bottom: 1.5px solid #235; color: #235; }
table { border-collapse: collapse; }
table.tx { width: 100%%; }
table.tx th { text-align: %s; border-bottom: 1px solid #444; padding: 2pt 3pt; vertical-align: bottom; background: #e8edf3; }
table.tx td { padding: 1.5pt 3pt; vertical-align: top; border-bottom: 0.5px solid #ddd; }
thead { display: table-header-group; }
tr { page-break-inside: avoid; }
.r { text-align: %s !important; white-space: nowrap; }
.c { text-align: center !important; }
.cols { width: 100%%; } .cols td { vertical-align: top; width: 50%%; }
.box { border: 1px solid #444; } .box td { padding: 2pt 6pt; }
.side { font-size: 8pt; color: #345; padding: 0 10pt; vertical-align: top; }
.small { font-size: 7pt; color: #333; }
tfoot { display: table-footer-group; }
.wm { position: fixed; top: 45%%; left: 5%%; width: 90%%; text-align: center; font-size: 54pt; color: rgba(120, 120, 120, 0.18); transform: rotate(-35deg); z-index: 10; }
</style></head><body>
`, d.Lang, dir, page, font, start, end)
	if d.Watermark != "" {
		fmt.Fprintf(&b, "<div class=\"wm\">%s</div>\n", html.EscapeString(d.Watermark))
	}
	lines := func(ls []string) string {
		var s []string
		for _, l := range ls {
			s = append(s, html.EscapeString(l))
		}
		return strings.Join(s, "<br>")
	}
	for _, bl := range d.Blocks {
		switch x := bl.(type) {
		case Title:
			fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(x.Text))
		case Columns:
			fmt.Fprintf(&b, "<table class=\"cols\" width=\"100%%\"><tr><td>%s</td><td class=\"r\" nowrap>%s</td></tr></table>\n", lines(x.Left), lines(x.Right))
		case Heading:
			fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(x.Text))
		case Para:
			cls := ""
			if x.Small {
				cls = ` class="small"`
			}
			fmt.Fprintf(&b, "<p%s>%s</p>\n", cls, html.EscapeString(x.Text))
		case Box:
			b.WriteString("<table class=\"cols\" width=\"100%\"><tr><td>")
			if x.Title != "" {
				fmt.Fprintf(&b, "<b>%s</b>", html.EscapeString(x.Title))
			}
			b.WriteString("<table class=\"box\">")
			for _, r := range x.Rows {
				fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"r\">%s</td></tr>", html.EscapeString(r[0]), html.EscapeString(r[1]))
			}
			b.WriteString("</table></td>")
			if len(x.Side) > 0 {
				fmt.Fprintf(&b, "<td class=\"side\">%s</td>", lines(x.Side))
			}
			b.WriteString("</tr></table>\n")
		case Table:
			b.WriteString("<table class=\"tx\" width=\"100%\" cellpadding=\"3\">")
			// Column widths from the content, so that LibreOffice, which does not size
			// columns from their content as a browser does, keeps dates and amounts on one
			// line.
			b.WriteString("<colgroup>")
			for _, w := range colWidths(x) {
				fmt.Fprintf(&b, "<col width=\"%d%%\">", w)
			}
			b.WriteString("</colgroup><thead>")
			for _, h := range x.Head {
				b.WriteString("<tr>")
				for i, c := range h {
					fmt.Fprintf(&b, "<th%s>%s</th>", alignClass(x.Align, i), html.EscapeString(c))
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</thead>")
			if d.Footer != "" && len(x.Rows) >= 10 {
				// A footer group repeats where the table breaks: the page footer inside the
				// table area that real statements print.
				fmt.Fprintf(&b, "<tfoot><tr><td colspan=\"%d\" class=\"small\">%s</td></tr></tfoot>", len(x.Head[0]), html.EscapeString(d.Footer))
			}
			b.WriteString("<tbody>\n")
			for _, r := range x.Rows {
				b.WriteString("<tr>")
				for i, c := range r {
					fmt.Fprintf(&b, "<td valign=\"top\"%s>%s</td>", alignClass(x.Align, i), lines(strings.Split(c, "\n")))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody></table>\n")
		}
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func alignClass(align string, i int) string {
	if i < len(align) {
		switch align[i] {
		case 'r':
			return ` class="r" nowrap`
		case 'c':
			return ` class="c"`
		case 'L':
			return ""
		}
	}
	return " nowrap"
}

// colWidths returns each column's share of the table width in percent, from the longest line
// of its cells (a wrapping column, align L, counts half).
func colWidths(t Table) []int {
	n := len(t.Head[0])
	w := make([]int, n)
	for _, r := range append(append([][]string{}, t.Head...), t.Rows...) {
		for i, c := range r {
			for _, l := range strings.Split(c, "\n") {
				w[i] = max(w[i], len([]rune(l)))
			}
		}
	}
	sum := 0
	for i := range w {
		w[i] = max(w[i], 4) + 2
		if i < len(t.Align) && t.Align[i] == 'L' {
			w[i] = w[i]/2 + 10
		}
		sum += w[i]
	}
	for i := range w {
		w[i] = w[i] * 100 / sum
	}
	return w
}

// expandRows turns rows whose cells hold several lines into one physical row per line, the
// other cells blank: how line printers and most bank engines print multi-line descriptions.
func expandRows(rows [][]string) [][]string {
	var out [][]string
	for _, r := range rows {
		n := 1
		split := make([][]string, len(r))
		for i, c := range r {
			split[i] = strings.Split(c, "\n")
			n = max(n, len(split[i]))
		}
		for k := range n {
			row := make([]string, len(r))
			for i := range r {
				if k < len(split[i]) {
					row[i] = split[i][k]
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// groffEsc escapes text for a groff input line or tbl cell.
func groffEsc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "€", `\[Eu]`)
	if s != "" {
		s = `\&` + s
	}
	return s
}

// renderGroff writes the document as groff -ms source with tbl tables (".TS H" repeats the
// header on each page), for groff -t -ms -Tps and then ps2pdf.
func renderGroff(d *Doc) string {
	var b strings.Builder
	b.WriteString(".nr PS 9\n.nr VS 11\n.nr LL 7i\n.nr PO 0.6i\n.nr HM 0.6i\n.nr FM 0.8i\n.ds CH\n.ds CF\n")
	if d.Footer != "" {
		fmt.Fprintf(&b, ".ds LF \\s-2%s\\s0\n.ds RF \\s-2Page %%\\s0\n", groffEsc(d.Footer))
	} else {
		b.WriteString(".ds RF Page %\n")
	}
	b.WriteString(".LP\n")
	for _, bl := range d.Blocks {
		switch x := bl.(type) {
		case Title:
			fmt.Fprintf(&b, ".LP\n\\s[15]\\fB%s\\fP\\s0\n.sp 0.5\n", groffEsc(x.Text))
		case Columns:
			b.WriteString(".TS\ntab(^) expand;\nl r.\n")
			for i := range max(len(x.Left), len(x.Right)) {
				fmt.Fprintf(&b, "%s^%s\n", groffEsc(at(x.Left, i)), groffEsc(at(x.Right, i)))
			}
			b.WriteString(".TE\n")
		case Heading:
			fmt.Fprintf(&b, ".SH\n%s\n.LP\n", groffEsc(x.Text))
		case Para:
			if x.Small {
				fmt.Fprintf(&b, ".LP\n\\s-2%s\\s0\n", groffEsc(x.Text))
			} else {
				fmt.Fprintf(&b, ".LP\n%s\n", groffEsc(x.Text))
			}
		case Box:
			if x.Title != "" {
				fmt.Fprintf(&b, ".LP\n\\fB%s\\fP\n", groffEsc(x.Title))
			}
			b.WriteString(".TS\ntab(^);\n")
			if len(x.Side) > 0 {
				b.WriteString("| l r | l.\n")
			} else {
				b.WriteString("| l r |.\n")
			}
			b.WriteString("_\n")
			for i := range max(len(x.Rows), len(x.Side)) {
				var r [2]string
				if i < len(x.Rows) {
					r = x.Rows[i]
				}
				fmt.Fprintf(&b, "%s^%s", groffEsc(r[0]), groffEsc(r[1]))
				if len(x.Side) > 0 {
					fmt.Fprintf(&b, "^\\s-1%s\\s0", groffEsc(at(x.Side, i)))
				}
				b.WriteString("\n")
			}
			b.WriteString("_\n.TE\n")
		case Table:
			cols := len(x.Head[0])
			small := cols >= 6
			if small {
				b.WriteString(".ps -1\n.vs -1\n")
			}
			b.WriteString(".TS H\ntab(^) expand;\n")
			widths := colWidths(x)
			wrap := make([]bool, cols)
			var hf, bf []string
			for i := range cols {
				a := "l"
				if i < len(x.Align) {
					a = string(x.Align[i])
				}
				f := a
				if a == "L" {
					// A wrapping column: a fixed width and text blocks (T{ T}).
					wrap[i] = true
					a = "l"
					f = fmt.Sprintf("lw(%.2fi)", float64(widths[i])*0.8*7/100)
				}
				hf = append(hf, a+"b")
				bf = append(bf, f)
			}
			for range x.Head {
				b.WriteString(strings.Join(hf, " ") + "\n")
			}
			b.WriteString(strings.Join(bf, " ") + ".\n")
			for _, h := range x.Head {
				var cs []string
				for _, c := range h {
					cs = append(cs, groffEsc(c))
				}
				b.WriteString(strings.Join(cs, "^") + "\n")
			}
			b.WriteString("_\n.TH\n")
			for _, r := range expandRows(x.Rows) {
				var cs []string
				for i, c := range r {
					if wrap[i] && c != "" {
						cs = append(cs, "T{\n.na\n.nh\n"+groffEsc(c)+"\nT}")
					} else {
						cs = append(cs, groffEsc(c))
					}
				}
				b.WriteString(strings.Join(cs, "^") + "\n")
			}
			b.WriteString(".TE\n")
			if small {
				b.WriteString(".ps\n.vs\n")
			}
		}
	}
	return b.String()
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

var texRepl = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
)

// renderLaTeX writes the document as LaTeX with longtable (whose \endhead repeats the header
// on each page). xe selects xelatex with fontspec and the document's font; otherwise the source
// is for pdflatex with its default Computer Modern fonts.
func renderLaTeX(d *Doc, xe bool) string {
	esc := func(s string) string {
		if s == "" {
			return `\mbox{}`
		}
		s = texRepl.Replace(s)
		if !xe {
			s = strings.ReplaceAll(s, "£", `\pounds{}`)
		}
		return s
	}
	var b strings.Builder
	paper := "a4paper"
	if d.Letter {
		paper = "letterpaper"
	}
	fmt.Fprintf(&b, "\\documentclass[10pt]{article}\n\\usepackage[%s,margin=15mm,bottom=20mm]{geometry}\n", paper)
	if xe {
		font := d.Font
		if font == "" {
			font = "DejaVu Sans"
		}
		fmt.Fprintf(&b, "\\usepackage{fontspec}\n\\setmainfont{%s}\n", font)
	}
	b.WriteString("\\usepackage{longtable}\n\\usepackage{array}\n\\usepackage{fancyhdr}\n\\pagestyle{fancy}\n\\fancyhf{}\n\\renewcommand{\\headrulewidth}{0pt}\n")
	if d.Footer != "" {
		fmt.Fprintf(&b, "\\lfoot{\\tiny %s}\n", esc(d.Footer))
	}
	b.WriteString("\\rfoot{\\footnotesize Page \\thepage}\n\\hyphenpenalty=10000\n\\setlength{\\parindent}{0pt}\n\\setlength{\\parskip}{4pt}\n\\begin{document}\n\\small\n")
	for _, bl := range d.Blocks {
		switch x := bl.(type) {
		case Title:
			fmt.Fprintf(&b, "{\\LARGE\\bfseries %s\\par}\n", esc(x.Text))
		case Columns:
			b.WriteString("\\begin{minipage}[t]{0.5\\textwidth}\n")
			for _, l := range x.Left {
				fmt.Fprintf(&b, "%s\\\\\n", esc(l))
			}
			b.WriteString("\\end{minipage}\\hfill\\begin{minipage}[t]{0.45\\textwidth}\\raggedleft\n")
			for _, l := range x.Right {
				fmt.Fprintf(&b, "%s\\\\\n", esc(l))
			}
			b.WriteString("\\end{minipage}\\par\n")
		case Heading:
			fmt.Fprintf(&b, "\\medskip{\\large\\bfseries %s}\\par\\hrule\\smallskip\n", esc(x.Text))
		case Para:
			if x.Small {
				fmt.Fprintf(&b, "{\\scriptsize %s\\par}\n", esc(x.Text))
			} else {
				fmt.Fprintf(&b, "%s\\par\n", esc(x.Text))
			}
		case Box:
			b.WriteString("\\begin{minipage}[t]{0.5\\textwidth}\n")
			if x.Title != "" {
				fmt.Fprintf(&b, "\\textbf{%s}\\\\\n", esc(x.Title))
			}
			b.WriteString("\\begin{tabular}{|l r|}\\hline\n")
			for _, r := range x.Rows {
				fmt.Fprintf(&b, "%s & %s\\\\\n", esc(r[0]), esc(r[1]))
			}
			b.WriteString("\\hline\\end{tabular}\\end{minipage}")
			if len(x.Side) > 0 {
				b.WriteString("\\hfill\\begin{minipage}[t]{0.42\\textwidth}\\footnotesize\n")
				for _, l := range x.Side {
					fmt.Fprintf(&b, "%s\\\\\n", esc(l))
				}
				b.WriteString("\\end{minipage}")
			}
			b.WriteString("\\par\n")
		case Table:
			// Wrapping columns (L) get a share of the line width, so that wide tables stay
			// on the page; wide tables are set smaller.
			if len(x.Head[0]) >= 6 {
				b.WriteString("{\\footnotesize\n")
			}
			b.WriteString("\\begin{longtable}{@{\\extracolsep{\\fill}}")
			widths := colWidths(x)
			for i := range x.Head[0] {
				a := "l"
				if i < len(x.Align) {
					a = string(x.Align[i])
				}
				if a == "L" {
					a = fmt.Sprintf(">{\\raggedright\\arraybackslash}p{%.2f\\textwidth}", float64(widths[i])*0.8/100)
				}
				b.WriteString(a)
			}
			b.WriteString("@{}}\n\\hline\n")
			for _, h := range x.Head {
				var cs []string
				for _, c := range h {
					cs = append(cs, "\\textbf{"+esc(c)+"}")
				}
				b.WriteString(strings.Join(cs, " & ") + "\\\\\n")
			}
			b.WriteString("\\hline\n\\endhead\n")
			for _, r := range expandRows(x.Rows) {
				var cs []string
				for _, c := range r {
					cs = append(cs, esc(c))
				}
				b.WriteString(strings.Join(cs, " & ") + "\\\\\n")
			}
			b.WriteString("\\hline\n\\end{longtable}\n")
			if len(x.Head[0]) >= 6 {
				b.WriteString("}\n")
			}
		}
	}
	b.WriteString("\\end{document}\n")
	return b.String()
}
