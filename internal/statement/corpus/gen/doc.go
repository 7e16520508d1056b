package main

// A statement document as the producers' inputs describe it: a few kinds of blocks that every
// renderer (HTML, groff, LaTeX) knows. Layouts build their documents from these blocks and
// format every date and amount themselves, so the printed text is the layout's, not the
// renderer's.

// Doc is one statement document.
type Doc struct {
	Lang   string // HTML lang attribute
	RTL    bool   // right-to-left (HTML dir=rtl)
	Letter bool   // US Letter paper instead of A4
	Font   string // CSS font family; xelatex uses it too
	Footer string // printed at the foot of every page (where the producer can)
	// Watermark is large rotated text across every page, over the table rows (HTML only).
	Watermark string
	Blocks    []Block
}

// Block is one part of a Doc.
type Block interface{ block() }

// Title is the bank's name at the top of the first page.
type Title struct{ Text string }

// Columns is text in two columns: the bank's address left, the account details right.
type Columns struct{ Left, Right []string }

// Heading starts a section of the statement.
type Heading struct{ Text string }

// Para is prose; Small prints it in a smaller size (legal text, notices).
type Para struct {
	Text  string
	Small bool
}

// Box is a framed label/value summary; Side is marketing text printed in a second column beside
// it.
type Box struct {
	Title string
	Rows  [][2]string
	Side  []string
}

// Table is a table whose header rows repeat on each page. A cell's lines are separated by "\n".
type Table struct {
	Head  [][]string // one or two header rows
	Align string     // one letter per column: l, r or c
	Rows  [][]string
}

func (Title) block()   {}
func (Columns) block() {}
func (Heading) block() {}
func (Para) block()    {}
func (Box) block()     {}
func (Table) block()   {}
