package ed25519

// WithProgramDefines makes the engines built until restore is called use
// defines (a form of the kernels) instead of ProgramDefines' choice.
func WithProgramDefines(defines map[string]string) (restore func()) {
	old := programDefines
	programDefines = defines
	return func() { programDefines = old }
}
