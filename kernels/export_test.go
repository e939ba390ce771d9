package kernels

// CShim is cShim for the external tests (the field test's host build).
const CShim = cShim
