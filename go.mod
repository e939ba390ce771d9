module github.com/gpucrypto/gpucrypto

go 1.24.0

require (
	filippo.io/bigmod v0.1.0
	filippo.io/nistec v0.0.4
	github.com/cloudflare/circl v1.6.1
	github.com/ebitengine/purego v0.10.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/crypto v0.40.0
	golang.org/x/sys v0.36.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
