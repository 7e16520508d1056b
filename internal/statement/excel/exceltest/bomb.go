package exceltest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
)

// DeflateRepeated is a raw deflate stream of head, chunk repeated until the whole is at least
// target bytes, and tail, built without compressing the repeats: chunk is compressed once,
// flushed to a byte boundary, and its blocks repeated (a repeated block refers only to the
// periodic text before it, so it decodes to the same bytes each time). It returns the
// compressed bytes, the expanded size and its CRC-32.
func DeflateRepeated(head, chunk, tail []byte, target uint64) (deflated []byte, size uint64, crc uint32) {
	segment := func(data []byte, final bool) []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression) // a valid level: no error
		_, _ = w.Write(data)                               // into memory: no error
		if final {
			_ = w.Close()
		} else {
			_ = w.Flush()
		}
		return b.Bytes()
	}
	var out bytes.Buffer
	out.Write(segment(head, false))
	block := segment(chunk, false)
	crc = crc32.Update(0, crc32.IEEETable, head)
	size = uint64(len(head))
	for size+uint64(len(tail)) < target {
		out.Write(block)
		crc = crc32.Update(crc, crc32.IEEETable, chunk)
		size += uint64(len(chunk))
	}
	out.Write(segment(tail, true))
	crc = crc32.Update(crc, crc32.IEEETable, tail)
	return out.Bytes(), size + uint64(len(tail)), crc
}

// ReplaceSheet returns the workbook book with the entry xl/worksheets/sheet1.xml replaced by
// the raw deflate data, declared to expand to declared bytes with the given CRC-32 (unless
// deflated is nil), and extra empty entries added at the end.
func ReplaceSheet(book, deflated []byte, declared uint64, crc uint32, extra int) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(book), int64(len(book)))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	replaced := false
	for _, f := range zr.File {
		if f.Name != "xl/worksheets/sheet1.xml" || deflated == nil {
			if err := zw.Copy(f); err != nil {
				return nil, err
			}
			continue
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, CRC32: crc,
			CompressedSize64: uint64(len(deflated)), UncompressedSize64: declared})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(deflated); err != nil {
			return nil, err
		}
		replaced = true
	}
	if !replaced && deflated != nil {
		return nil, fmt.Errorf("the workbook has no xl/worksheets/sheet1.xml")
	}
	for i := range extra {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("xl/media/p%d.bin", i), Method: zip.Store}); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
