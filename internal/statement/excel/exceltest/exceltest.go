// Package exceltest writes workbooks for tests: minimal .xls (BIFF8 in an OLE2 compound file)
// workbooks, .xlsx workbooks of given rows, and hostile .xlsx ones whose entries inflate to far
// more than they take.
package exceltest

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// BIFF8 record types and version used by BiffBook.
const (
	recEOF        = 0x000A
	recBOUNDSHEET = 0x0085
	recBOF        = 0x0809
	biff8         = 0x0600
)

// BiffRec is one record: its type and data.
func BiffRec(typ uint16, data ...[]byte) []byte {
	body := bytes.Join(data, nil)
	out := binary.LittleEndian.AppendUint16(nil, typ)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(body)))
	return append(out, body...)
}

// U16 is v as a little-endian 16-bit integer.
func U16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }

// U32 is v as a little-endian 32-bit integer.
func U32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// F64 is v as a little-endian IEEE 754 double.
func F64(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

// XLStr is an XLUnicodeString: 16-bit length, flags, then Latin-1 bytes or UTF-16LE.
func XLStr(s string, wide bool) []byte {
	units := utf16.Encode([]rune(s))
	out := U16(len(units))
	if !wide {
		out = append(out, 0)
		for _, u := range units {
			out = append(out, byte(u))
		}
		return out
	}
	out = append(out, 1)
	for _, u := range units {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

// ShortStr is a ShortXLUnicodeString (8-bit length), as BOUNDSHEET names are.
func ShortStr(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := []byte{byte(len(units)), 1}
	for _, u := range units {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

// CellHdr is the row, column and XF index that begin a cell record.
func CellHdr(row, col, xf int) []byte {
	return bytes.Join([][]byte{U16(row), U16(col), U16(xf)}, nil)
}

// RKInt encodes an integer RK value, times 100 when x100 is set.
func RKInt(v int, x100 bool) []byte {
	rk := uint32(int32(v)<<2) | 2
	if x100 {
		rk |= 1
	}
	return U32(int(rk))
}

// BiffBook assembles a BIFF8 workbook stream: globals (records given, then one BOUNDSHEET per
// sheet and EOF), then each sheet substream (records given between its BOF and EOF).
func BiffBook(globals [][]byte, sheetNames []string, sheets [][][]byte) []byte {
	g := BiffRec(recBOF, U16(biff8), U16(0x0005), make([]byte, 12))
	for _, r := range globals {
		g = append(g, r...)
	}
	// BOUNDSHEET offsets point past the globals; compute the globals' length first.
	bsLen := 0
	for _, n := range sheetNames {
		bsLen += len(BiffRec(recBOUNDSHEET, U32(0), []byte{0, 0}, ShortStr(n)))
	}
	eof := BiffRec(recEOF)
	off := len(g) + bsLen + len(eof)
	var subs []byte
	for i, n := range sheetNames {
		g = append(g, BiffRec(recBOUNDSHEET, U32(off+len(subs)), []byte{0, 0}, ShortStr(n))...)
		subs = append(subs, BiffRec(recBOF, U16(biff8), U16(0x0010), make([]byte, 12))...)
		for _, r := range sheets[i] {
			subs = append(subs, r...)
		}
		subs = append(subs, eof...)
	}
	g = append(g, eof...)
	return append(g, subs...)
}

// CFBFile wraps streams in a version 3 compound file: a FAT sector, a directory sector and the
// streams in regular sectors (each padded to 4096 bytes, the mini-stream cutoff).
func CFBFile(streams map[string][]byte, order []string) []byte {
	const sector = 512
	const (
		freeSect   = 0xFFFFFFFF
		endOfChain = 0xFFFFFFFE
		fatSect    = 0xFFFFFFFD
		noStream   = 0xFFFFFFFF
	)
	header := make([]byte, sector)
	copy(header, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	binary.LittleEndian.PutUint16(header[24:], 0x3E)
	binary.LittleEndian.PutUint16(header[26:], 3)
	binary.LittleEndian.PutUint16(header[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(header[30:], 9)
	binary.LittleEndian.PutUint16(header[32:], 6)
	binary.LittleEndian.PutUint32(header[44:], 1) // FAT sectors
	binary.LittleEndian.PutUint32(header[48:], 1) // directory start
	binary.LittleEndian.PutUint32(header[56:], 4096)
	binary.LittleEndian.PutUint32(header[60:], endOfChain)
	binary.LittleEndian.PutUint32(header[68:], endOfChain)
	binary.LittleEndian.PutUint32(header[76:], 0) // DIFAT[0]: the FAT is sector 0
	for i := 80; i < sector; i += 4 {
		binary.LittleEndian.PutUint32(header[i:], freeSect)
	}
	fat := make([]uint32, sector/4)
	for i := range fat {
		fat[i] = freeSect
	}
	fat[0], fat[1] = fatSect, endOfChain
	dir := make([]byte, 0, 4*128)
	entry := func(name string, typ byte, child, right uint32, start uint32, size int) []byte {
		e := make([]byte, 128)
		units := utf16.Encode([]rune(name))
		for i, u := range units {
			binary.LittleEndian.PutUint16(e[2*i:], u)
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*(len(units)+1)))
		e[66], e[67] = typ, 1
		binary.LittleEndian.PutUint32(e[68:], noStream)
		binary.LittleEndian.PutUint32(e[72:], right)
		binary.LittleEndian.PutUint32(e[76:], child)
		binary.LittleEndian.PutUint32(e[116:], start)
		binary.LittleEndian.PutUint32(e[120:], uint32(size))
		return e
	}
	dir = append(dir, entry("Root Entry", 5, 1, noStream, endOfChain, 0)...)
	var data []byte
	next := uint32(2)
	for i, name := range order {
		s := streams[name]
		padded := append([]byte(nil), s...)
		for len(padded) < 4096 || len(padded)%sector != 0 {
			padded = append(padded, 0)
		}
		n := uint32(len(padded) / sector)
		for k := uint32(0); k < n; k++ {
			fat[next+k] = next + k + 1
		}
		fat[next+n-1] = endOfChain
		right := uint32(noStream)
		if i+1 < len(order) {
			right = uint32(i + 2)
		}
		dir = append(dir, entry(name, 2, noStream, right, next, len(padded))...)
		data = append(data, padded...)
		next += n
	}
	for len(dir)%sector != 0 {
		dir = append(dir, make([]byte, 128)...)
	}
	out := append([]byte(nil), header...)
	for _, v := range fat {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, dir[:sector]...)
	return append(out, data...)
}
