package mt940

import (
	"bytes"
	"strings"
)

// info is what the :86: fields of a statement line say about it.
type info struct {
	desc    string
	eref    string // end-to-end reference (EREF+, /EREF/)
	kref    string // the customer's reference in the purpose (KREF+)
	name    string
	account string
	// suppUsed: the :61: supplementary details were read as the counterparty's name.
	suppUsed bool
}

// subfield is one "?NN" (or Triodos ">NN") subfield of a structured :86:, as offsets into the
// joined text.
type subfield struct {
	code       int
	start, end int
}

// boundary is where a purpose subfield ends in the joined purpose, and whether the next one
// continues it without a space.
type boundary struct {
	end  int
	cont bool
}

// The kinds of :86: a file holds, for Dialect.
const (
	kindGVC = 1 << iota
	kindTriodos
	kindSlash
	kindFree
)

// Widths that decide how wrapped text is joined. SWIFT lines carry 65 characters and the
// German purpose subfields 27: text that fills its line or subfield was wrapped wherever the
// width ran out, often in mid-word, and joins without a space; text that stops short ended
// there, and a space separates it from the next. Rabobank wraps its slash-coded :86: at 64.
const (
	lineWidth      = 65
	slashLineWidth = 64
	subfieldWidth  = 27
)

// readInfo reads the :86: fields of one statement line. supp is the :61: supplementary details.
func (p *parser) readInfo(spans []span, supp string) info {
	if len(spans) == 0 {
		return info{}
	}
	first := p.s[spans[0].start:spans[0].end]
	t := strings.TrimLeft(first, " ")
	if len(t) >= 3 && isDigit(t[0]) && isDigit(t[1]) && isDigit(t[2]) &&
		(len(t) == 3 || t[3] == '?' || t[3] == '>' || t[3] == '\r' || t[3] == '\n') {
		if j, one := p.joinTight(spans); one != "" {
			j := strings.TrimLeft(one, " ")
			if isGVC(j) {
				return readGVC(p, j)
			}
		} else {
			j = bytes.TrimLeft(j, " ")
			if isGVC(j) {
				return readGVC(p, j)
			}
		}
	}
	if len(t) > 0 && t[0] == '/' {
		if _, _, ok := slashKeyAt(t, 0); ok {
			p.infoKinds |= kindSlash
			return p.readSlash(spans)
		}
	}
	p.infoKinds |= kindFree
	return p.readFree(spans, supp)
}

// joinTight joins the lines of a structured :86: (GVC or Triodos). A line break there is never
// content, and banks break lines anywhere, even between a "?" and its subfield number, so lines
// join without a space. Only a line that stops well short of the 65 characters a SWIFT line holds
// may have ended a word (or lost a trailing space on the way), and joins with a space unless a
// lowercase word visibly runs on ("Oktob" + "er") or a subfield marker is cut.
// It returns the single line itself when there is nothing to join, else the joined bytes in
// a scratch buffer, valid until the next :86:.
func (p *parser) joinTight(spans []span) ([]byte, string) {
	if len(spans) == 1 {
		c := p.s[spans[0].start:spans[0].end]
		if indexEOL(c) < 0 {
			return nil, c
		}
	}
	b := p.join[:0]
	for _, sp := range spans {
		c := p.s[sp.start:sp.end]
		prev := ""
		for c != "" {
			var line string
			line, c = cutLine(c)
			if line == "" {
				continue
			}
			if prev != "" && !tightLines(prev, line) {
				b = append(b, ' ')
			}
			b = append(b, line...)
			prev = line
		}
	}
	p.join = b
	return b, ""
}

// isGVC reports whether a joined :86: starts with a three-digit code and a "?NN" or ">NN" subfield.
func isGVC[T string | []byte](j T) bool {
	return len(j) >= 6 && isDigit(j[0]) && isDigit(j[1]) && isDigit(j[2]) &&
		(j[3] == '?' || j[3] == '>') && isDigit(j[4]) && isDigit(j[5])
}

// shortLine is the length below which a line of a structured :86: counts as ended early.
const shortLine = 60

func tightLines(prev, next string) bool {
	if runeLen(prev) >= shortLine {
		return true
	}
	last := prev[len(prev)-1]
	if last == '?' || last == '>' || next[0] == '?' || next[0] == '>' {
		return true
	}
	if len(prev) >= 2 && isDigit(last) && (prev[len(prev)-2] == '?' || prev[len(prev)-2] == '>') {
		return true // "?2" + "2MTLG..."
	}
	return (isLetter(last) || last >= 0x80) && next[0] >= 'a' && next[0] <= 'z'
}

// joinSoft joins the lines of the fields: directly after a line of width characters or more,
// with a line break (which clean turns into a space) after a shorter one, and between fields.
func (p *parser) joinSoft(spans []span, width int) string {
	if len(spans) == 1 {
		c := p.s[spans[0].start:spans[0].end]
		if indexEOL(c) < 0 {
			return c
		}
	}
	b := p.join[:0]
	for k, sp := range spans {
		if k > 0 {
			b = append(b, '\n')
		}
		c := p.s[sp.start:sp.end]
		prev := -1 // characters on the line before; -1 before the first
		for c != "" {
			var line string
			line, c = cutLine(c)
			if line == "" {
				continue
			}
			if prev >= 0 && prev < width {
				b = append(b, '\n')
			}
			prev = runeLen(line)
			b = append(b, line...)
		}
	}
	p.join = b
	return string(b)
}

// readGVC reads the German structure (DFÜ-Abkommen, Anlage 3): a three-digit business
// transaction code (GVC), then subfields "?NN": ?00 posting text, ?10 primanota, ?20-?29 and
// ?60-?63 purpose, ?30 the counterparty's bank code or BIC, ?31 account or IBAN, ?32-?33 name,
// ?34 text key extension. Triodos uses the same shape with '>' and puts the counterparty's
// account in >10 and the statement's own account in >31.
func readGVC[T string | []byte](p *parser, j T) info {
	sep := j[3]
	if sep == '>' {
		p.infoKinds |= kindTriodos
	} else {
		p.infoKinds |= kindGVC
	}
	subs := p.subs[:0]
	for k := 3; ; k++ {
		i := indexByte(j[k:], sep)
		if i < 0 {
			break
		}
		k += i
		if k+2 >= len(j) {
			break
		}
		if isDigit(j[k+1]) && isDigit(j[k+2]) {
			if n := len(subs); n > 0 {
				subs[n-1].end = k
			}
			subs = append(subs, subfield{code: int(j[k+1]-'0')*10 + int(j[k+2]-'0'), start: k + 3, end: len(j)})
			k += 2
		}
	}
	p.subs = subs

	var in info
	var posting, name32, name33, acct31, acct38, acct10, acct11 T
	for _, sf := range subs {
		v := j[sf.start:sf.end]
		switch sf.code {
		case 0:
			posting = v
		case 32:
			name32 = v
		case 33:
			name33 = v
		case 31:
			acct31 = v
		case 38:
			acct38 = v
		case 10:
			acct10 = v
		case 11:
			acct11 = v
		}
	}

	pur := purpose(p, j, subs)
	b := cleanAppend(p.out[:0], posting, false)
	b = p.keywords(b, pur, &in)
	in.desc = string(b)

	if len(name33) == 0 {
		b = cleanAppend(b[:0], name32, false)
	} else {
		b = cleanAppend(b[:0], name32, false)
		spaced := !continues(name32, name33) || name32[len(name32)-1] == ' '
		b = cleanAppend(b, name33, spaced)
	}
	in.name = string(b)
	p.out = b[:0]

	a31 := compactAccount(acct31)
	if sep == '>' {
		// Triodos repeats the statement's own account in >31.
		if strings.TrimLeft(a31, "0") == p.sec.ownAcct {
			a31 = ""
		}
		if a := compactAccount(acct11); a31 == "" && isIBAN(a) {
			a31 = a
		}
		if a := compactAccount(acct10); a31 == "" && allDigits(a) {
			a31 = a
		}
	}
	if len(acct38) > 0 && !isIBAN(a31) {
		if a := compactAccount(acct38); isIBAN(a) {
			a31 = a // Polish banks give the IBAN in ?38 and the domestic number in ?31
		}
	}
	if a31 != "" {
		in.account = a31
	}
	return in
}

func isPurpose(code int) bool { return (code >= 20 && code <= 29) || (code >= 60 && code <= 63) }

// purpose joins the purpose subfields in their order into a scratch buffer and records where
// each ends.
func purpose[T string | []byte](p *parser, j T, subs []subfield) []byte {
	bounds := p.bound[:0]
	b := p.pbuf[:0]
	var prev T
	for _, sf := range subs {
		if !isPurpose(sf.code) {
			continue
		}
		v := j[sf.start:sf.end]
		if len(bounds) > 0 {
			cont := continues(prev, v)
			bounds[len(bounds)-1].cont = cont
			if !cont {
				b = append(b, ' ')
			}
		}
		b = append(b, v...)
		bounds = append(bounds, boundary{end: len(b)})
		prev = v
	}
	p.bound = bounds
	p.pbuf = b
	return b
}

// continues reports whether subfield next carries on subfield prev without a space: when prev
// fills its 27 characters (SEPA purposes are one text cut into 27-character pieces, wherever
// the cut falls), or when a word visibly runs on from prev into next ("inklusi" + "ve", which
// some banks cut short of 27).
func continues[T string | []byte](prev, next T) bool {
	if runeLen(prev) == subfieldWidth {
		return true
	}
	if len(prev) == 0 || len(next) == 0 {
		return false
	}
	last, first := prev[len(prev)-1], next[0]
	return (isLetter(last) || last >= 0x80) && first >= 'a' && first <= 'z'
}

// sepaKeywords are the SEPA keywords German banks put in the purpose (DFÜ-Abkommen Anlage 3,
// "SEPA-Verwendungszweck"). text ones run to the next keyword; the others are identifiers and
// amounts, which end with the subfield that the next one does not continue.
var sepaKeywords = []struct {
	kw   string
	text bool
}{
	{"EREF+", false}, {"KREF+", false}, {"MREF+", false}, {"CRED+", false}, {"DEBT+", false},
	{"SVWZ+", true}, {"ABWA+", true}, {"ABWE+", true}, {"IBAN+", false}, {"BIC+", false},
	{"COAM+", false}, {"OAMT+", false}, {"PURP+", false}, {"SQTP+", false}, {"BREF+", false},
	{"RREF+", false}, {"ORCR+", false}, {"ORMR+", false},
}

// keywordAt returns the index into sepaKeywords of the keyword at t[i:], or -1.
func keywordAt(t []byte, i int) int {
	if i+4 > len(t) || !isUpper(t[i]) || (t[i+3] != '+' && (i+4 == len(t) || t[i+4] != '+')) {
		return -1
	}
	for k, kw := range sepaKeywords {
		if i+len(kw.kw) <= len(t) && string(t[i:i+len(kw.kw)]) == kw.kw {
			return k
		}
	}
	return -1
}

// keywords splits a purpose at its SEPA keywords and appends the text a person reads (what comes
// before the first keyword, the remittance information SVWZ+, and text after identifiers) to b;
// it fills in's references and IBAN. A keyword counts at the start, after a space, or where a
// subfield starts. A purpose without keywords is appended whole.
func (p *parser) keywords(b []byte, pur []byte, in *info) []byte {
	type hit struct{ k, at, val int }
	var hits [16]hit
	n := 0
	bounds := p.bound
	bi := 0
	// Every keyword ends in its only '+', three or four letters after its start: find the
	// pluses (rare in text) and look back, rather than trying a keyword at every byte.
	next := 0 // where the next keyword may start: after the last one found
	for q := 3; q < len(pur) && n < len(hits); q++ {
		k := bytes.IndexByte(pur[q:], '+')
		if k < 0 {
			break
		}
		q += k
		for _, i := range [2]int{q - 4, q - 3} {
			if i < next {
				continue
			}
			for bi < len(bounds) && bounds[bi].end < i {
				bi++
			}
			if i != 0 && pur[i-1] != ' ' && (bi == len(bounds) || bounds[bi].end != i) {
				continue
			}
			if k := keywordAt(pur, i); k >= 0 {
				hits[n] = hit{k, i, i + len(sepaKeywords[k].kw)}
				n++
				next = hits[n-1].val
				break
			}
		}
	}
	if n == 0 {
		return cleanAppend(b, pur, true)
	}
	b = cleanAppend(b, pur[:hits[0].at], true)
	for h := 0; h < n; h++ {
		limit := len(pur)
		if h+1 < n {
			limit = hits[h+1].at
		}
		kw := sepaKeywords[hits[h].k]
		val := hits[h].val
		if kw.text {
			if kw.kw == "SVWZ+" {
				b = cleanAppend(b, pur[val:limit], true)
			}
			continue
		}
		end := boundedEnd(bounds, val, limit)
		switch kw.kw {
		case "EREF+":
			if v := clean(string(pur[val:end])); in.eref == "" && !isPlaceholder(v) {
				in.eref = v
			}
		case "KREF+":
			if v := clean(string(pur[val:end])); in.kref == "" && !isPlaceholder(v) {
				in.kref = v
			}
		case "IBAN+":
			if a := compactAccount(pur[val:end]); in.account == "" && isIBAN(a) {
				in.account = a
			}
		}
		b = cleanAppend(b, pur[end:limit], true)
	}
	return b
}

// boundedEnd returns where an identifier starting at val ends: at the end of the first purpose
// subfield from val on that the next one does not continue, or at limit.
func boundedEnd(bounds []boundary, val, limit int) int {
	for _, bd := range bounds {
		if bd.end <= val {
			continue
		}
		if bd.end >= limit {
			return limit
		}
		if !bd.cont {
			return bd.end
		}
	}
	return limit
}

// placeholders are the words banks write for "no reference".
var placeholders = []string{"NONREF", "NOTPROVIDED", "NOT PROVIDED", "NONE", "EREF", "KREF+", "KREF", "MREF", "-"}

// isPlaceholder reports whether a reference is empty or one of the words banks write for "none".
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > 12 {
		return false
	}
	for _, ph := range placeholders {
		if strings.EqualFold(v, ph) {
			return true
		}
	}
	return false
}

// isSlashKey reports whether k is a code of the slash structure of Dutch SEPA statements (ING,
// Rabobank, ABN AMRO, Knab) or SWIFT's own /OCMT/ and /CHGS/. A switch, not a map: it runs for
// every slash of every :86: and needs no hashing.
func isSlashKey(k string) bool {
	switch k {
	case "EREF", "REMI", "NAME", "BENM", "ORDP", "IBAN", "BIC", "OCMT", "CHGS", "TRTP", "CSID",
		"MARF", "PREF", "RTRN", "ISDT", "ADDR", "ULTC", "ULTD", "ULTB", "PURP", "CNTP", "CDTRREF",
		"CDTRREFTP", "ISSR", "CODE", "EXCH", "SVCL", "RTYP", "ID", "BENE", "ORDB", "ACCW", "BUSP":
		return true
	}
	return false
}

// slashKeyAt reads "/KEY/" at t[i:] and returns the key and the index after it.
func slashKeyAt(t string, i int) (string, int, bool) {
	if i >= len(t) || t[i] != '/' {
		return "", 0, false
	}
	j := i + 1
	for j < len(t) && j-i <= 10 && isUpper(t[j]) {
		j++
	}
	if j >= len(t) || t[j] != '/' || j-i-1 < 2 || !isSlashKey(t[i+1:j]) {
		return "", 0, false
	}
	return t[i+1 : j], j + 1, true
}

// readSlash reads a slash-coded :86: ("/EREF/...//NAME/...//REMI/..."). Komercijalna Banka
// Skopje writes a positional variant: "/BENM/account" or "/ORDP/account", then the name, then the
// purpose, each on a line of its own that starts with '/'.
func (p *parser) readSlash(spans []span) info {
	var in info
	if ok := p.readPositional(spans[0], &in); ok {
		return in
	}
	t := p.joinSoft(spans, slashLineWidth)
	type kv struct {
		key        string
		start, end int // the value
	}
	var kvs [24]kv
	n := 0
	lead := ""
	for i := 0; i < len(t); i++ {
		k := strings.IndexByte(t[i:], '/')
		if k < 0 {
			break
		}
		i += k
		key, next, ok := slashKeyAt(t, i)
		if !ok {
			continue
		}
		if n == 0 {
			lead = t[:i]
		} else {
			kvs[n-1].end = i
		}
		if n == len(kvs) {
			break
		}
		kvs[n] = kv{key, next, len(t)}
		n++
		i = next - 1 // the next key may follow at once: "/BENM//NAME/"
	}
	var trtp, remi string
	var rest []string
	for _, e := range kvs[:n] {
		v := t[e.start:e.end]
		switch e.key {
		case "OCMT", "CHGS":
			// "/OCMT/EUR11,85/": the value ends with its own slash; text after it is free text.
			if k := strings.IndexByte(v, '/'); k >= 0 {
				rest = append(rest, v[k+1:])
			}
			continue
		}
		v = strings.Trim(trimSpace(v), "/")
		switch e.key {
		case "TRTP":
			trtp = v
		case "REMI":
			v = strings.TrimPrefix(strings.TrimPrefix(v, "USTD//"), "USTD/")
			v = strings.TrimPrefix(v, "STRD/CUR/")
			remi = v
		case "EREF":
			if c := clean(v); !isPlaceholder(c) {
				in.eref = c
			}
		case "NAME":
			if in.name == "" {
				in.name = clean(v)
			}
		case "IBAN":
			if a := compactAccount(v); a != "" {
				in.account = a
			}
		case "CNTP":
			// "/CNTP/IBAN/BIC/NAME/CITY/" (ING)
			parts := strings.Split(v, "/")
			if a := compactAccount(parts[0]); in.account == "" && a != "" {
				in.account = a
			}
			if len(parts) > 2 && in.name == "" {
				in.name = clean(parts[2])
			}
		case "BENM", "ORDP":
			// A party: its name or its account, when the file does not give /NAME/ or /IBAN/.
			c := clean(v)
			if a := compactAccount(c); isIBAN(a) || allDigits(a) {
				if in.account == "" {
					in.account = a
				}
			} else if in.name == "" {
				in.name = c
			}
		}
	}
	b := cleanAppend(p.join[:0], trtp, false)
	b = cleanAppend(b, remi, true)
	b = cleanAppend(b, lead, true)
	for _, r := range rest {
		b = cleanAppend(b, r, true)
	}
	in.desc = string(b)
	p.join = b[:0]
	return in
}

// readPositional reads the Komercijalna Banka layout of :86: when sp holds it.
func (p *parser) readPositional(sp span, in *info) bool {
	c := p.s[sp.start:sp.end]
	l1, c := cutLine(c)
	l1 = trimSpace(l1)
	if len(l1) < 7 || (!strings.HasPrefix(l1, "/BENM/") && !strings.HasPrefix(l1, "/ORDP/")) {
		return false
	}
	acct := l1[6:]
	if strings.ContainsAny(acct, "/ ") || !(allDigits(acct) || isIBAN(acct)) {
		return false
	}
	l2, c := cutLine(c)
	l2 = trimSpace(l2)
	if len(l2) < 2 || l2[0] != '/' {
		return false
	}
	if _, _, ok := slashKeyAt(l2, 0); ok {
		return false
	}
	in.account = acct
	in.name = clean(strings.Trim(l2, "/"))
	b := p.join[:0]
	for c != "" {
		var l string
		l, c = cutLine(c)
		l = strings.Trim(trimSpace(l), "/")
		if l == "" || l == "EMPTY" {
			continue
		}
		b = cleanAppend(b, l, true)
	}
	in.desc = string(b)
	p.join = b[:0]
	return true
}

// cutLine splits c at its first line end (LF, CRLF or CR).
func cutLine(c string) (string, string) {
	i := indexEOL(c)
	if i < 0 {
		return c, ""
	}
	if c[i] == '\r' && i+1 < len(c) && c[i+1] == '\n' {
		return c[:i], c[i+2:]
	}
	return c[:i], c[i+1:]
}

// readFree reads free text. Three bank layouts in it are certain enough to read: Knab's
// "REK: account/NAAM: name", mBank's ';'-separated "OD:" (from), "Z RACH.:" (from account) and
// "TYT.:" (title), and SNS's account number followed by the name that the :61: supplementary
// details repeat.
func (p *parser) readFree(spans []span, supp string) info {
	var in info
	t := p.joinSoft(spans, lineWidth)
	if k := strings.Index(t, "REK:"); k >= 0 && (k == 0 || t[k-1] == ' ' || t[k-1] == '\n') {
		if p.readKnab(t, k, &in) {
			return in
		}
	}
	if strings.Contains(t, "TYT.:") {
		p.readMBank(t, &in)
		return in
	}
	in.desc = clean(t)
	if supp != "" {
		if sp := strings.IndexByte(in.desc, ' '); sp >= 6 && isAccountNumber(in.desc[:sp]) {
			after := in.desc[sp+1:]
			if strings.HasPrefix(after, supp) && (len(after) == len(supp) || after[len(supp)] == ' ') {
				in.account = in.desc[:sp]
				in.name = supp
				in.suppUsed = true
				in.desc = trimSpace(after[len(supp):])
			}
		}
	}
	return in
}

func isAccountNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' {
			return false
		}
	}
	return s != ""
}

func (p *parser) readKnab(t string, k int, in *info) bool {
	v := strings.TrimLeft(t[k+4:], " ")
	e := strings.IndexAny(v, "/ \n")
	if e < 0 {
		e = len(v)
	}
	acct := v[:e]
	if acct == "" {
		return false
	}
	in.account = acct
	if n := strings.Index(v, "NAAM:"); n >= 0 {
		name := v[n+5:]
		if l := strings.IndexByte(name, '\n'); l >= 0 {
			name = name[:l]
		}
		in.name = clean(name)
	}
	in.desc = clean(t[:k])
	return true
}

func (p *parser) readMBank(t string, in *info) {
	var lead, title string
	for i := 0; t != ""; i++ {
		part := t
		if k := strings.IndexByte(t, ';'); k >= 0 {
			part, t = t[:k], t[k+1:]
		} else {
			t = ""
		}
		c := strings.IndexByte(part, ':')
		if c < 0 {
			if i == 0 {
				lead = trimSpace(part)
				if len(lead) > 4 && allDigits(lead[:3]) && lead[3] == ' ' {
					lead = lead[4:] // the bank's three-digit transaction code
				}
			}
			continue
		}
		key, val := trimSpace(part[:c]), part[c+1:]
		switch key {
		case "TYT.":
			title = val
		case "Z RACH.", "DO RACH.", "NA RACH.":
			if a := compactAccount(val); in.account == "" && (allDigits(a) || isIBAN(a)) {
				in.account = a
			}
		case "OD", "DLA", "DO", "NADAWCA", "ODBIORCA":
			// The name's line; the address follows on the next.
			v := strings.TrimLeft(val, " \n")
			if l := strings.IndexByte(v, '\n'); l >= 0 {
				v = v[:l]
			}
			if in.name == "" {
				in.name = clean(v)
			}
		}
	}
	b := cleanAppend(p.join[:0], lead, false)
	b = cleanAppend(b, title, true)
	in.desc = string(b)
	p.join = b[:0]
}
