package devicetest

import (
	"reflect"
	"sync"
	"testing"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// routedEngine is a package's Engine as the tests drive it.
type routedEngine interface {
	SetRoute(batch.Route)
	OnFallback(func(error))
}

// engines are the test binary's engines (Engine), by type.
var (
	enginesMu sync.Mutex
	engines   = map[reflect.Type]any{}
)

// Engine is the test binary's engine of type E on the test device, made
// by newEngine on first use: it computes every call there (the kernels
// under test, whatever the CPU's speed), and a fallback to the CPU panics,
// so no test passes on the CPU's answers. An engine that cannot be made
// ends every test that asks for it.
func Engine[E routedEngine](tb testing.TB, newEngine func(*device.Device) (E, error)) E {
	tb.Helper()
	d := Device(tb)
	enginesMu.Lock()
	defer enginesMu.Unlock()
	key := reflect.TypeFor[E]()
	if e, ok := engines[key]; ok {
		if err, failed := e.(error); failed {
			tb.Fatal(err)
		}
		return e.(E)
	}
	e, err := newEngine(d)
	if err != nil {
		engines[key] = err
		tb.Fatal(err)
	}
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	e.SetRoute(batch.RouteDevice)
	engines[key] = e
	return e
}
