package statement

// Options bound what a parse may consume, and carry what opens a protected file. The zero value
// means the defaults.
type Options struct {
	// MaxRows is the most transactions (or table rows) a file may hold. Default 1,000,000.
	MaxRows int
	// MaxDecompressedBytes bounds what a compressed container (XLSX) may expand to. Default 256 MiB.
	MaxDecompressedBytes int64
	// MaxDepth bounds the nesting of XML and other tree formats. Default 64.
	MaxDepth int
	// Password opens a PDF protected by a user password. It is a secret: readers never put it
	// in a message, and nothing keeps it past the parse.
	Password string
}

// Defaults of Options.
const (
	DefaultMaxRows              = 1_000_000
	DefaultMaxDecompressedBytes = 256 << 20
	DefaultMaxDepth             = 64
)

// WithDefaults returns o with every unset limit at its default.
func (o Options) WithDefaults() Options {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = DefaultMaxDecompressedBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}
