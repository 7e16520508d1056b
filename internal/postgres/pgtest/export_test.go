package pgtest

// ClusterDir returns the folder of the embedded cluster of this process, or
// "" when none was started.
func ClusterDir() string {
	if shared == nil {
		return ""
	}
	return shared.tmpDir
}
