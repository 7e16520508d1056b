package reconjob

// SetResultsPartBytes makes OpenResults read parts of n bytes until the returned function
// restores the size. Not for parallel tests.
func SetResultsPartBytes(n int64) (restore func()) {
	old := resultsPartBytes
	resultsPartBytes = n
	return func() { resultsPartBytes = old }
}
