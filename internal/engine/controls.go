package engine

import (
	"log/slog"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Controls are the controls of batch.Engine, written once over a Core: a
// package's Engine embeds them (Controls: ControlsOf(core)) and has every
// one, documented on batch.Engine. An Engine that needs more in one of
// them (rsa's ReleaseBuffers drops its key tables too) defines its own,
// which takes the embedded one's place.
type Controls struct{ core *Core }

// ControlsOf are the controls of c.
func ControlsOf(c *Core) Controls { return Controls{core: c} }

// Device is batch.Engine's.
func (c Controls) Device() *device.Device { return c.core.Device() }

// String is batch.Engine's.
func (c Controls) String() string { return c.core.String() }

// SetRoute is batch.Engine's.
func (c Controls) SetRoute(r batch.Route) { c.core.SetRoute(r) }

// Stats is batch.Engine's.
func (c Controls) Stats() batch.Stats { return c.core.Stats() }

// OnFallback is batch.Engine's.
func (c Controls) OnFallback(f func(error)) { c.core.OnFallback(f) }

// SetLogger is batch.Engine's.
func (c Controls) SetLogger(l *slog.Logger) { c.core.SetLogger(l) }

// SetResultCheck is batch.Engine's.
func (c Controls) SetResultCheck(every int) { c.core.SetResultCheck(every) }

// ReleaseBuffers is batch.Engine's.
func (c Controls) ReleaseBuffers() { c.core.ReleaseBuffers() }

// Close is batch.Engine's.
func (c Controls) Close() error { return c.core.Close() }
