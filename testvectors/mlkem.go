package testvectors

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// CCTVMLKEM is C2SP's CCTV ML-KEM vectors (cctv-mlkem/, CC0 1.0: see its
// README.md and PROVENANCE.txt).
//
//go:embed cctv-mlkem
var CCTVMLKEM embed.FS

// NamedValue is one line "name = value" of a CCTV ML-KEM file.
type NamedValue struct {
	Name, Value string
}

// CCTVMLKEMValues returns the lines of the file cctv-mlkem/name
// ("intermediate/ML-KEM-768.txt", "strcmp/ML-KEM-1024.txt",
// "unluckysample/ML-KEM-768.txt"), in order; a name may occur more than
// once (the intermediate values' r, dkPKE).
func CCTVMLKEMValues(name string) ([]NamedValue, error) {
	data, err := CCTVMLKEM.ReadFile("cctv-mlkem/" + name)
	if err != nil {
		return nil, err
	}
	var values []NamedValue
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" {
			continue
		}
		n, v, ok := strings.Cut(line, " = ")
		if !ok {
			return nil, fmt.Errorf("testvectors: %s: a line without \" = \": %.40q", name, line)
		}
		values = append(values, NamedValue{n, v})
	}
	return values, s.Err()
}

// CCTVMLKEMModulus returns the encapsulation keys of
// cctv-mlkem/modulus/<set>.txt.gz (set "ML-KEM-768" or "ML-KEM-1024"),
// every one failing FIPS 203's modulus check.
func CCTVMLKEMModulus(set string) ([][]byte, error) {
	data, err := CCTVMLKEM.ReadFile("cctv-mlkem/modulus/" + set + ".txt.gz")
	if err != nil {
		return nil, err
	}
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	text, err := io.ReadAll(z)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	for _, line := range strings.Fields(string(text)) {
		key, err := hex.DecodeString(line)
		if err != nil {
			return nil, fmt.Errorf("testvectors: modulus/%s: %w", set, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}
