// Package corpus is the development corpus of the PDF statement parser: bank statements whose
// content is generated data, rendered through real PDF producers and transformed as real files
// are, each with an answer key written from the same data. It imitates the held-out real
// statements the parser is judged on; it does not replace them as the measure.
//
// The files are in testdata/, named <layout>-<producer>[-<variant>].pdf, each with
// <same name>.key.json beside it. `make corpus` rebuilds them with the generator in gen/; tests
// only read the committed files. `make corpus-report` prints how the parser does on each file.
//
// Layouts (each a statement modelled on a kind of real statement): us-checking and
// us-checking-yearend (sections, MM/DD dates, a period in words, one crossing 31 December),
// uk-current and uk-current-long ("2nd Mar" dates printed once per day, Paid in / Paid out,
// brought and carried forward), in-savings and in-savings-ddmmyy (Debit / Credit or Withdrawal /
// Deposit, lakh grouping), nl-sepa (two-line headers, Bedrag af / bij, SEPA descriptions over four
// lines), de-giro (dd.mm. without year, 1.234,56 S / H, alter / neuer Kontostand), br-extrato
// (dd/mm, decimal commas, trailing minus, SALDO DO DIA lines), credit-card (purchases plain,
// payments CR, "Mar 02") and credit-card-uk ("02 Mar", payments in parentheses), mobile-money (M-Pesa-like, newest first, Completion Time with
// seconds), rtl-fa-jalali and rtl-ar (right to left, Persian or Arabic-Indic digits, Jalali or
// Gregorian dates).
//
// Producers: chromium (headless --print-to-pdf from HTML), libreoffice (HTML imported into
// Writer, PDF export), groff (groff -t -ms -Tps, then Ghostscript's ps2pdf), pdflatex and
// xelatex (longtable). Variants: gs (re-distilled by Ghostscript pdfwrite), linearized and
// objstm (qpdf --linearize, --object-streams=generate), owner-encrypted (qpdf AES-256 with an
// empty user password: opens without asking), user-encrypted (AES-256, needs the key's
// password; read with it, and checked to be refused without it or with a wrong one),
// user-encrypted-rc4-40, -rc4-128 and -aes-128 (the same with the older algorithms),
// linearized-incremental (an incremental update appended after a linearized file), and damaged
// copies that poppler still opens: damaged-xref-shift (every offset off by the bytes inserted
// after the header), damaged-xref-truncated (the xref table cut short), damaged-xref-garbled
// (entries and startxref wrong), damaged-junk (mail headers before %PDF, junk after %%EOF).
// A copy from which pdftotext reads other digits than from its producer's own file is dropped
// too: Ghostscript re-distilling garbles the Persian digits of the Jalali statement.
//
// The answer key (Key) is JSON:
//
//	{
//	  "layout": "uk-current", "producer": "chromium", "variant": "owner-encrypted",
//	  "poppler_opens": true,         // pdftotext opened the file when it was generated
//	  "password": "",                // the user password, when the file needs one
//	  "account": "40-12-34 71234567", "currency": "GBP",
//	  "period_start": "2022-02-12", "period_end": "2022-03-11",
//	  "opening_balance": "1234.56",  // or null when the statement prints none
//	  "closing_balance": "1300.00",
//	  "transactions": [              // in the order the statement prints them
//	    {"date": "2022-02-14", "amount": "-62.22", "description": "CARD PAYMENT TO ...", "reference": ""}
//	  ]
//	}
//
// Amounts are decimal strings, signed from the account holder's side: credits (money in)
// positive, debits negative. On the credit-card statement a purchase is negative, a payment
// positive, and the balances are negative amounts owed, so that opening plus the transactions is
// the closing balance. A description is the printed lines joined by spaces.
//
// # Scans
//
// testdata/scans holds what the OCR reader reads: twelve of the producers' own PDFs (every
// layout but the right-to-left ones, whose scripts are not in the OCR languages; each producer;
// none over four pages) made into scans and phone photos, named <source>-<variant>.<ext>, each
// with <same name>.key.json. `make corpus-scans` rebuilds them from the committed PDFs (`make
// corpus` does too, after the PDFs): pdftoppm renders the pages, then the generator's own Go code
// skews, adds noise, blurs and photographs them with randomness seeded by the file's name, so a
// rebuild writes the same bytes. Variants:
//
//   - scan-300: a flatbed scan at 300 DPI in gray, turned 0.3-1.5°, with Gaussian noise that a
//     scanner's white point clips on the paper and leaves at the edges of the print, kept to 16
//     gray levels; a PNG (with its DPI) for one page, a Deflate multi-page TIFF for several.
//   - scan-150: 150 DPI, turned 1-3°, blurred and noisier; a PDF as scanners write them, one
//     gray JPEG per page and no text at all (the PDF parser says ErrNoTextLayer).
//   - photo: page 1 photographed at about 300 DPI: on a desk-coloured margin, in a slight
//     perspective (the top farther away), turned 0.5-2°, lit unevenly, soft; a JPEG of quality 80.
//
// A scan's key is its source's with variant set and the fields source, dpi, pages and
// source_pages added. When the scan holds fewer pages than its source (a photo of page 1), it
// keeps only the transactions printed on them (of a row broken over the last page break, the
// description printed before it, and the reference if printed there) and a balance only if it is
// printed there, so a reader is not asked for what the file does not show; the transactions then
// need not add up from opening to closing balance. TestScans checks the keys and the files without OCR.
package corpus
