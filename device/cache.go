package device

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// Environment variables of the compiled-program cache.
const (
	EnvNoCache  = "GPUCRYPTO_NO_CACHE"  // "1" disables the cache
	EnvCacheDir = "GPUCRYPTO_CACHE_DIR" // overrides os.UserCacheDir()/gpucrypto
)

// cacheFormat is part of every key: bump it when the entry layout changes.
const cacheFormat = "gpucrypto-bin-2"

var cacheMagic = []byte("GPUCRYPTO-BIN2\n")

// diskCache stores program binaries as files named by their key. Each file
// is magic ‖ SHA-256(payload) ‖ payload, written to a temporary file and
// renamed into place, so readers never see a partial entry.
type diskCache struct{ dir string }

// CacheDir returns the directory of the compiled-program cache, or "" when
// the cache is disabled or no cache directory exists.
func CacheDir() string {
	if os.Getenv(EnvNoCache) == "1" {
		return ""
	}
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "gpucrypto")
}

func openCache() *diskCache {
	dir := CacheDir()
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	return &diskCache{dir: dir}
}

func (c *diskCache) path(key string) string { return filepath.Join(c.dir, key+".bin") }

// load returns the payload and CacheHit, or CacheMiss when no entry exists,
// or CacheCorrupt when one exists but fails its checks.
func (c *diskCache) load(key string) ([]byte, string) {
	data, err := os.ReadFile(c.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, CacheMiss
	}
	if err != nil {
		return nil, CacheCorrupt
	}
	hdr := len(cacheMagic) + sha256.Size
	if len(data) <= hdr || !bytes.HasPrefix(data, cacheMagic) {
		return nil, CacheCorrupt
	}
	sum := sha256.Sum256(data[hdr:])
	if !bytes.Equal(sum[:], data[len(cacheMagic):hdr]) {
		return nil, CacheCorrupt
	}
	return data[hdr:], CacheHit
}

func (c *diskCache) store(key string, payload []byte) error {
	if len(payload) == 0 {
		return errors.New("device: empty program binary not cached")
	}
	sum := sha256.Sum256(payload)
	entry := make([]byte, 0, len(cacheMagic)+len(sum)+len(payload))
	entry = append(append(append(entry, cacheMagic...), sum[:]...), payload...)
	return c.writeAtomic(c.path(key), entry)
}

func (c *diskCache) writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp)
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func (c *diskCache) remove(key string) { os.Remove(c.path(key)) }

// loadSmall and storeSmall keep short text answers (feature probes).
func (c *diskCache) loadSmall(key string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, key+".txt"))
	if err != nil {
		return "", false
	}
	return string(b), true
}

func (c *diskCache) storeSmall(key, v string) {
	_ = c.writeAtomic(filepath.Join(c.dir, key+".txt"), []byte(v)) // a cache that cannot be written is not an error
}

// hashKey is a short file-name-safe digest of s.
func hashKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
