package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/statementmatch/service/internal/statement"
)

// Decrypt returns the PDF data without the encryption its user password puts on it: the same
// document, which then opens without a password, so that a file can be kept (encrypted at rest by
// its keeper) and read later without ever keeping the password. It returns nil and no error
// when data needs no password: it is not encrypted, or only with an owner password (which
// every viewer ignores). Without opts.Password a protected file is ErrPasswordRequired; with a
// wrong one ErrPasswordIncorrect. The decrypted file is checked to open and to hold the same
// pages before it is returned.
//
// The file is read as it is, then with the %%EOF it may lack, then through a rebuilt
// cross-reference table, the same readings openDocument tries.
func Decrypt(data []byte, opts statement.Options) ([]byte, error) {
	opts = opts.WithDefaults()
	if !declaresEncryption(data) {
		return nil, nil
	}
	open := opts
	open.Password = ""
	doc, _, err := openDocument(data, open)
	if err == nil {
		doc.close()
		return nil, nil
	}
	if !errors.Is(err, statement.ErrPasswordRequired) {
		return nil, err
	}
	if opts.Password == "" {
		return nil, err
	}
	doc, pages, err := openDocument(data, opts)
	if err != nil {
		return nil, err
	}
	doc.close()
	c, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	readings := []func() ([]byte, error){
		func() ([]byte, error) { return data, nil },
		func() ([]byte, error) { return withEOF(data), nil },
		func() ([]byte, error) { return rebuildXRef(c, data, &budget{left: opts.MaxDecompressedBytes}) },
	}
	var firstErr error
	for _, reading := range readings {
		d, err := safely(reading)
		if err != nil || d == nil {
			continue
		}
		out, err := decryptAsIs(d, opts.Password)
		if err == nil {
			err = sameDocument(out, len(pages), opts)
		}
		if err == nil {
			return out, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, statement.Errorf(statement.FormatPDF, statement.ErrCorrupt, statement.Position{},
		"the PDF opens with the password but cannot be decrypted (%s)", shortErr(firstErr))
}

// sameDocument checks a decrypted file: it opens without a password and has the pages the
// encrypted one has.
func sameDocument(out []byte, pages int, opts statement.Options) error {
	opts.Password = ""
	doc, got, err := openDocument(out, opts)
	if err != nil {
		return err
	}
	doc.close()
	if len(got) != pages {
		return fmt.Errorf("%d pages after decryption, %d before", len(got), pages)
	}
	return nil
}

// decryptAsIs is pdfcpu's decryption of data, which writes the document anew without
// encryption; a panic on hostile input is contained.
func decryptAsIs(data []byte, password string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", errReaderPanic, r)
		}
	}()
	conf := model.NewDefaultConfiguration()
	conf.UserPW, conf.OwnerPW = password, password
	conf.ValidationMode = model.ValidationRelaxed
	var w bytes.Buffer
	if err := api.Decrypt(bytes.NewReader(data), &w, conf); err != nil {
		if errors.Is(err, pdfcpu.ErrWrongPassword) {
			return nil, statement.Errorf(statement.FormatPDF, statement.ErrPasswordIncorrect, statement.Position{}, MessagePasswordIncorrect)
		}
		return nil, err
	}
	return w.Bytes(), nil
}
