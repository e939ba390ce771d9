package ecdh_test

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

// SharedSecretsInto and PublicKeysInto write into the caller's strings:
// the same results as the CPU, in strings reused from call to call (whose
// old contents never show through), with a failed element zeroed and its
// error alone (a malformed key, a low-order peer, an output string of the
// wrong length), in one chunk and in pipelined chunks, and on the CPU
// after a device failure.
func TestInto(t *testing.T) {
	e := engine(t)
	const n = 40
	for _, c := range ecdh.Curves() {
		privs, peers := make([][]byte, n), make([][]byte, n)
		edge := ecdh.EdgeU(c)
		for i := range n {
			privs[i], peers[i] = make([]byte, c.Size()), make([]byte, c.Size())
			rand.Read(privs[i])
			rand.Read(peers[i])
			if i%9 == 4 {
				peers[i] = edge[i%len(edge)]
			}
		}
		privs[17] = privs[17][:3]
		want := make([][]byte, n)
		wantErr := make([]error, n)
		for i := range n {
			var w [][]byte
			if w, wantErr[i] = (ecdh.CPUEngine()).SharedSecrets(c, privs[i:i+1], peers[i:i+1]); wantErr[i] == nil {
				want[i] = w[0]
			}
		}
		out := make([][]byte, n)
		for i := range out {
			out[i] = make([]byte, c.Size())
		}
		out[23] = make([]byte, c.Size()+1) // the wrong length: fails alone
		for _, run := range []struct {
			name  string
			setup func() (restore func())
		}{
			{"one chunk", func() func() { return func() {} }},
			{"pipelined", func() func() { return ecdh.SetPipelineChunk(7) }},
			{"fallback", func() func() {
				e.OnFallback(func(error) {})
				e.SetFailHook(func() error { return errors.New("device lost") })
				return func() {
					e.SetFailHook(nil)
					e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
				}
			}},
		} {
			t.Run(c.String()+"/"+run.name, func(t *testing.T) {
				restore := run.setup()
				fellBack := int(e.Stats().Fallbacks)
				defer func() {
					restore()
					require.Equal(t, run.name == "fallback", int(e.Stats().Fallbacks) > fellBack, "fallbacks")
				}()
				for i := range out {
					for j := range out[i] {
						out[i][j] = 0xa5 // old contents
					}
				}
				err := e.SharedSecretsInto(c, privs, peers, out)
				var be *batch.Error
				require.ErrorAs(t, err, &be)
				for i := range n {
					switch {
					case i == 23:
						require.ErrorIs(t, be.Errs[i], ecdh.ErrKeyLength)
					case wantErr[i] != nil:
						require.Error(t, be.Errs[i], "element %d", i)
						require.Equal(t, make([]byte, c.Size()), out[i], "a failed element is zeroed (%d)", i)
					default:
						require.NoError(t, be.Errs[i], "element %d", i)
						require.Equal(t, want[i], out[i], "element %d", i)
					}
				}
				ok := append([][]byte(nil), privs...)
				ok[17] = make([]byte, c.Size())
				wantPub, err := ecdh.CPUEngine().PublicKeys(c, ok)
				require.NoError(t, err)
				out[23] = out[23][:c.Size()]
				require.NoError(t, e.PublicKeysInto(c, ok, out))
				require.Equal(t, wantPub, out)
				out[23] = make([]byte, c.Size()+1)
			})
		}
		require.Error(t, e.SharedSecretsInto(c, privs, peers, out[:n-1]), "outputs of another count fail the call")
		require.Error(t, e.PublicKeysInto(c, privs, out[:1]))
	}
}
