package match

import (
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
)

// This file implements rule 1 of the matching rules: finding references in bank texts.
//
// A text is cut into tokens (maximal runs of letters and digits). Consecutive tokens separated
// only by "link" characters (white space, '-', '/', '.', '_') form a chain; any other character
// ends the chain. A reference is found when the case-folded concatenation of the tokens of a
// sub-chain (from a token start to a token end) equals the reference's normalised form, the
// case-folded concatenation of all its tokens. A bank line is scanned once for all references:
// every sub-chain no longer than the longest normalised reference is looked up in a hash
// table, so the cost of a line does not depend on how many references there are. It is
// proportional to the line's tokens times the tokens that fit in the longest reference: linear
// for real references, but a file reader should cap their length (a reference of a megabyte
// against a megabyte-long text of one-letter tokens would cost 10^11 steps).

// Character classes of the scanner.
const (
	classBreak = iota // neither token nor link: ends the chain
	classLink         // may separate the tokens of one chain
	classToken        // letter or digit
)

// byteTab drives the scanner's inner loop, which runs over every byte of every bank line: one
// load tells what an ASCII byte is and, for a letter or digit, gives its folded form.
var byteTab = makeByteTab()

// Values of byteTab below every folded letter or digit ('0' is 0x30).
const (
	tabBreak    = iota // ASCII neither letter, digit nor link: ends the chain
	tabLink            // ASCII link character
	tabNonASCII        // first byte of a multi-byte (or invalid) encoding: decode it
	tabRune            // not in the table: a decoded letter or digit
	tabMax      = tabRune
)

func makeByteTab() (tab [256]byte) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			tab[c] = tabNonASCII
		case 'A' <= c && c <= 'Z':
			tab[c] = byte(c) + 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			tab[c] = byte(c)
		case c == '-' || c == '/' || c == '.' || c == '_' || statement.IsSpace(rune(c)):
			tab[c] = tabLink
		}
	}
	return tab
}

// runeClass is the class of a non-ASCII rune. White space counts as a link like the ASCII space:
// readers collapse white space to single blanks, but a no-break or thin space that slipped
// through still reads as a space to whoever typed the reference. utf8.RuneError (also what an
// invalid byte decodes to) is neither letter nor digit, so broken encodings end a chain.
func runeClass(r rune) int {
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return classToken
	case statement.IsSpace(r):
		return classLink
	}
	return classBreak
}

// fold returns the canonical case of r: the smallest rune of its simple case-folding orbit,
// ASCII letters in lower case. Two runes fold alike exactly when strings.EqualFold deems them
// equal, so "Kelvin sign" K matches k and long s matches s, which plain unicode.ToLower would
// miss; lower-casing ASCII keeps normalised references readable when debugging.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	low := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		low = min(low, f)
	}
	if 'A' <= low && low <= 'Z' {
		low += 'a' - 'A'
	}
	return low
}

// appendFold appends the folded UTF-8 encoding of r to b.
func appendFold(b []byte, r rune) []byte {
	f := fold(r)
	if f < utf8.RuneSelf {
		return append(b, byte(f))
	}
	return utf8.AppendRune(b, f)
}

// normalize appends to dst the normalised form of a reference: the case-folded concatenation
// of its tokens. Its separators do not matter, as rule 1 joins the reference's tokens; an
// empty result means the reference has no letter or digit and can never be found.
func normalize(dst []byte, ref string) []byte {
	for i := 0; i < len(ref); {
		c := ref[i]
		if v := byteTab[c]; v != tabNonASCII {
			if v > tabMax {
				dst = append(dst, v)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(ref[i:])
		if runeClass(r) == classToken {
			dst = appendFold(dst, r)
		}
		i += n
	}
	return dst
}

// finder finds the references of a set in texts. It is not safe for concurrent use: its
// buffers are reused from one text to the next so that scanning allocates nothing.
//
// Most of a bank text is not a reference, so the scan is a sequence of ever dearer tests
// that reject a sub-chain as early as possible: its length must be that of some reference
// (lengths), its first bytes must begin some reference (prefix), its hash must pass a Bloom
// filter small enough to stay in cache (spans), and only then is it looked up in the table.
type finder struct {
	// The normalised reference of group g is norms[offsets[g]:offsets[g+1]]: one array
	// rather than a string per reference, which would be as many allocations.
	norms   []byte
	offsets []int32
	// maxLen is the length in bytes of the longest normalised reference: longer sub-chains
	// cannot match, which bounds the work per token.
	maxLen int
	// lengths[n] tells whether some normalised reference is n bytes long.
	lengths []bool
	// prefix is a one-probe Bloom filter over the first prefixLen bytes of every normalised
	// reference of at least that length. Most tokens of a bank text (booking words, names,
	// numbers) start no reference, and one bit test skips all their longer sub-chains.
	prefix     []uint64
	prefixBits uint
	// spans is a blocked Bloom filter (two bits in one word, so one memory access) over the
	// hashes of the normalised references: it rejects, say, the unexpected invoice numbers of
	// a statement before they reach the larger table.
	spans     []uint64
	spansBits uint
	// table is an open-addressing hash table of the normalised references: each slot holds a
	// 32-bit fingerprint of the hash and the group plus one; 0 is empty. Matching
	// fingerprints are confirmed by comparing the bytes, so a hash collision cannot make a
	// false match.
	table []uint64
	mask  uint64

	buf    []byte  // folded bytes of the current chain, reused
	starts []int32 // offsets in buf of the chain's token starts, reused
	hits   []int32 // groups found in the current text, deduplicated
	// seen[g] == stamp when group g is in hits already; stamp changes with every text, so
	// nothing needs clearing between texts.
	seen  []uint32
	stamp uint32
}

// prefixLen is how many leading bytes of a sub-chain the prefix filter looks at. Four bytes
// separate the references of typical files ("inv2", "so12", "2024") from the words around
// them, and fit in one machine word, so the filter's hash is a single multiplication.
const prefixLen = 4

// newFinder returns an empty finder for up to capacity distinct references. Add them with
// add, then call seal before find.
func newFinder(capacity int) *finder {
	// 16 bits per reference in each filter keep false positives to a few percent; the table
	// is at most half full, so a miss usually costs one probe.
	f := &finder{
		prefixBits: filterBits(capacity, 16),
		spansBits:  filterBits(capacity, 16),
		offsets:    make([]int32, 1, capacity+1),
	}
	f.prefix = make([]uint64, 1<<f.prefixBits/64)
	f.spans = make([]uint64, 1<<f.spansBits/64)
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	f.table = make([]uint64, size)
	f.mask = uint64(len(f.table) - 1)
	return f
}

// add adds the normalised reference norm, not empty, unless already there, and returns its
// group: groups are numbered from 0 in the order references are first added.
func (f *finder) add(norm []byte) int32 {
	h := mix(spanHash(fnvOffset, norm))
	fp := fingerprint(h)
	i := h & f.mask
	for ; f.table[i] != 0; i = (i + 1) & f.mask {
		if slot := f.table[i]; slot>>32 == fp {
			if g := int32(uint32(slot) - 1); string(f.norm(g)) == string(norm) {
				return g
			}
		}
	}
	g := int32(f.groups())
	f.table[i] = fp<<32 | uint64(g+1)
	f.norms = append(f.norms, norm...)
	f.offsets = append(f.offsets, int32(len(f.norms)))
	f.maxLen = max(f.maxLen, len(norm))
	if len(norm) >= prefixLen {
		setBit(f.prefix, prefixHash(norm)&(1<<f.prefixBits-1))
	}
	word, bits := f.spanBits(h)
	f.spans[word] |= bits
	return g
}

// groups returns the number of distinct references added.
func (f *finder) groups() int { return len(f.offsets) - 1 }

// norm returns the normalised reference of group g.
func (f *finder) norm(g int32) []byte { return f.norms[f.offsets[g]:f.offsets[g+1]] }

// seal prepares the finder for find once every reference is added.
func (f *finder) seal() {
	f.lengths = make([]bool, f.maxLen+1)
	for g := range f.groups() {
		f.lengths[len(f.norm(int32(g)))] = true
	}
	f.seen = make([]uint32, f.groups())
	f.shrinkPrefix()
}

// filterBits returns the base-2 logarithm of a filter's size for n keys at about perKey bits
// each, between 2^12 and 2^22 bits (512 KiB, about what a core's cache holds).
func filterBits(n, perKey int) uint {
	b := uint(12)
	for b < 22 && 1<<b < n*perKey {
		b++
	}
	return b
}

func setBit(bits []uint64, i uint32) { bits[i/64] |= 1 << (i % 64) }

func hasBit(bits []uint64, i uint32) bool { return bits[i/64]&(1<<(i%64)) != 0 }

// shrinkPrefix halves the prefix filter, OR-ing its halves, while it stays at most 1/16 full.
// References often share a few prefixes ("inv2" for a whole file), and the filter is probed
// at every token of every text: a filter of a few hundred bytes stays in the fastest cache.
// The filter's index is the low bits of the hash, so halving keeps every key's bit.
func (f *finder) shrinkPrefix() {
	set := 0
	for _, w := range f.prefix {
		set += bits.OnesCount64(w)
	}
	for f.prefixBits > 9 && set*16 <= 1<<(f.prefixBits-1) {
		half := len(f.prefix) / 2
		for i := range half {
			f.prefix[i] |= f.prefix[half+i]
		}
		f.prefix = f.prefix[:half]
		f.prefixBits--
	}
}

// prefixHash hashes the first prefixLen bytes of s (Fibonacci hashing of the bytes as one
// word, keeping the high half of the product, whose bits depend on every input bit). s must be
// at least prefixLen long.
func prefixHash[S ~string | ~[]byte](s S) uint32 {
	_ = s[prefixLen-1]
	v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
	return uint32(v * 0x9E3779B97F4A7C15 >> 32)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// spanHash continues the FNV-1a hash h over s: the scanner hashes a sub-chain token by token
// as it extends it, so every byte is hashed once per start.
func spanHash[S ~string | ~[]byte](h uint64, s S) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// mix finishes an FNV-1a hash (MurmurHash3's fmix64). FNV's last multiplication moves a
// change of the last byte only into a few high bits, and references differ mostly in their
// last digits ("inv2024093750" and "inv2024093752"), so without mixing the filters' bits
// and the table's slots of neighbouring numbers would coincide.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// spanBits returns the word of the span filter for the mixed hash h and the two bits set in
// it. They use the top bits of h; the table uses the bottom ones.
func (f *finder) spanBits(h uint64) (word uint64, bits uint64) {
	return h >> (64 - f.spansBits + 6), 1<<(h>>32&63) | 1<<(h>>38&63)
}

// fingerprint is what a table slot keeps of a mixed hash: 32 bits, never 0.
func fingerprint(h uint64) uint64 { return h>>32 | 1 }

// lookup returns the group of the normalised reference span of mixed hash h, or -1.
func (f *finder) lookup(span []byte, h uint64) int32 {
	word, bits := f.spanBits(h)
	if f.spans[word]&bits != bits {
		return -1
	}
	fp := fingerprint(h)
	for i := h & f.mask; ; i = (i + 1) & f.mask {
		slot := f.table[i]
		if slot == 0 {
			return -1
		}
		if slot>>32 == fp {
			if g := int32(uint32(slot) - 1); string(f.norm(g)) == string(span) {
				return g
			}
		}
	}
}

// find returns the groups of the references found in text, each once, in the order their
// first occurrence ends. The slice is reused by the next call.
func (f *finder) find(text string) []int32 {
	f.hits = f.hits[:0]
	if f.groups() == 0 {
		return f.hits
	}
	f.stamp++
	if f.stamp == 0 { // wrapped: forget stamps of 2^32 texts ago
		clear(f.seen)
		f.stamp = 1
	}
	// Folding never makes a rune's encoding longer (a case orbit's smallest rune encodes in
	// at most as many bytes as any other, and ASCII stays ASCII), so the folded chain fits in
	// len(text) bytes and the loop writes it without capacity checks.
	if cap(f.buf) < len(text) {
		f.buf = make([]byte, 2*len(text))
	}
	buf, n, starts := f.buf[:len(text)], 0, f.starts[:0]
	inToken := false
	// linked tells, between tokens, whether only link characters followed the last token.
	linked := false
	for i := 0; i < len(text); {
		v, r, size := byteTab[text[i]], rune(0), 1
		if v == tabNonASCII {
			r, size = utf8.DecodeRuneInString(text[i:])
			switch runeClass(r) {
			case classToken:
				v = tabRune
			case classLink:
				v = tabLink
			default:
				v = tabBreak
			}
		}
		switch v {
		case tabLink:
			if inToken {
				inToken, linked = false, true
			}
			i += size
			continue
		case tabBreak:
			inToken, linked = false, false
			i += size
			continue
		}
		if !inToken {
			if !linked && len(starts) > 0 {
				f.flush(buf[:n], starts)
				n, starts = 0, starts[:0]
			}
			starts = append(starts, int32(n))
			inToken = true
		}
		if v == tabRune {
			n += utf8.EncodeRune(buf[n:], fold(r))
			i += size
			continue
		}
		// ASCII fast path: copy the rest of an ASCII token with one table load per byte.
		buf[n] = v
		n++
		for i++; i < len(text); i++ {
			v = byteTab[text[i]]
			if v <= tabMax {
				break
			}
			buf[n] = v
			n++
		}
	}
	if len(starts) > 0 {
		f.flush(buf[:n], starts)
	}
	f.starts = starts[:0]
	return f.hits
}

// flush looks up every sub-chain of the current chain that starts and ends at token
// boundaries and is no longer than the longest reference. buf holds the chain's folded bytes,
// starts the offsets of its tokens.
func (f *finder) flush(buf []byte, starts []int32) {
	for t, s := range starts {
		s := int(s)
		limit := min(len(buf), s+f.maxLen) // the longest sub-chain worth looking up ends here
		if len(buf)-s >= prefixLen && !hasBit(f.prefix, prefixHash(buf[s:])&(1<<f.prefixBits-1)) {
			// No reference of prefixLen bytes or more starts here; a shorter one might.
			limit = min(limit, s+prefixLen-1)
		}
		h, hashed := uint64(fnvOffset), s
		for u := t + 1; u <= len(starts); u++ {
			end := len(buf)
			if u < len(starts) {
				end = int(starts[u])
			}
			if end > limit {
				break
			}
			if !f.lengths[end-s] {
				continue
			}
			h, hashed = spanHash(h, buf[hashed:end]), end
			if g := f.lookup(buf[s:end], mix(h)); g >= 0 && f.seen[g] != f.stamp {
				f.seen[g] = f.stamp
				f.hits = append(f.hits, g)
			}
		}
	}
}
