package rsa

import (
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// residentKeys keeps the key tables of recent batches in device memory, so
// that batches of keys seen before upload none: a server signing with a
// few keys uploads their tables once, not once per batch. There is one
// current set of keys per width (the kernels' layout depends on it); a
// batch with a key the set lacks replaces the set by one with both the old
// keys and the new ones (or the new ones alone, past maxResidentKeys).
//
// The tables are key material: a set is zeroed on the device and freed
// when it is replaced and no batch uses it any more, when a batch that
// used it failed, after bufferIdle without a batch, and by the engine's
// ReleaseBuffers and Close (once no batch uses it).
type residentKeys struct {
	dev *device.Device

	mu   sync.Mutex
	sets map[string]*keySet // by width (deviceKernels.widthClass and the public form's)
}

// bufferIdle is how long a resident set of key tables stays on the device
// without a batch: as long as the engine's other buffers.
const bufferIdle = engine.BufferIdle

// residentDropped (tests), when set, is told the buffers of each set
// before they are freed, after their zeroing.
var residentDropped func(bufs []*device.Buffer)

// maxResidentKeys bounds the keys of one resident set (about 4 KB of
// tables per key at 4096 bits). A batch of more than half as many distinct
// keys uploads its own tables instead (deviceKernels.keyTables).
const maxResidentKeys = 4096

// keySet is one resident set: its keys' positions (their columns in the
// tables) and the tables on the device, in the order the kernels take
// them.
type keySet struct {
	class   string
	pos     map[*deviceForm]uint32
	keys    []*deviceForm // by position
	bufs    []*device.Buffer
	users   int  // batches using the set now
	retired bool // no longer current: dropped when its last user is done
	dropped bool // its tables zeroed and freed
	lastUse time.Time
}

// K is the number of keys in the set (the stride of its tables).
func (s *keySet) K() int { return len(s.keys) }

func newResidentKeys(dev *device.Device) *residentKeys {
	return &residentKeys{dev: dev, sets: map[string]*keySet{}}
}

// acquire returns a resident set of width class holding every key of forms,
// and the position of each in it, for one batch; release gives it back.
// tables lays out the tables of a list of keys. It returns a nil set when
// forms has too many keys to keep, or when the upload fails: the batch then
// uploads its own tables.
func (r *residentKeys) acquire(class string, forms []*deviceForm, tables func(forms []*deviceForm) [][]uint32) (*keySet, []uint32) {
	if len(forms) > maxResidentKeys/2 {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.sets[class]
	slots := make([]uint32, len(forms))
	var missing []*deviceForm
	if cur != nil {
		for i, form := range forms {
			p, ok := cur.pos[form]
			if !ok {
				missing = append(missing, form)
			}
			slots[i] = p
		}
		if missing == nil {
			cur.users++
			cur.lastUse = time.Now()
			return cur, slots
		}
	}
	keys := forms
	if cur != nil && cur.K()+len(missing) <= maxResidentKeys {
		keys = append(append([]*deviceForm(nil), cur.keys...), missing...)
	}
	set := &keySet{class: class, pos: make(map[*deviceForm]uint32, len(keys)), keys: keys, users: 1, lastUse: time.Now()}
	for i, form := range keys {
		set.pos[form] = uint32(i)
	}
	host := tables(keys)
	defer func() {
		for _, t := range host {
			clear(t)
		}
	}()
	for _, t := range host {
		buf, err := r.dev.Upload(device.Uint32Bytes(t))
		if err != nil {
			r.drop(set)
			return nil, nil
		}
		set.bufs = append(set.bufs, buf)
	}
	if cur != nil {
		r.retire(cur)
	}
	r.sets[class] = set
	time.AfterFunc(bufferIdle, func() { r.expire(set) })
	for i, form := range forms {
		slots[i] = set.pos[form]
	}
	return set, slots
}

// release ends a batch's use of set; failed says the batch failed (the
// set is then retired: the next batch uploads its keys again).
func (r *residentKeys) release(set *keySet, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set.users--
	if failed || set.retired {
		r.retire(set) // drops it when this was its last user
	}
}

// retire makes set no longer current. r.mu is held.
func (r *residentKeys) retire(set *keySet) {
	if r.sets[set.class] == set {
		delete(r.sets, set.class)
	}
	set.retired = true
	if set.users == 0 {
		r.drop(set)
	}
}

// expire retires set when no batch has used it for bufferIdle; otherwise
// it looks again when that time will have passed.
func (r *residentKeys) expire(set *keySet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if set.retired {
		return
	}
	if idle := time.Since(set.lastUse); idle < bufferIdle || set.users > 0 {
		time.AfterFunc(bufferIdle-min(idle, bufferIdle)+time.Millisecond, func() { r.expire(set) })
		return
	}
	r.retire(set)
}

// drop zeroes set's tables on the device and frees them, once. r.mu is
// held.
func (r *residentKeys) drop(set *keySet) {
	if set.dropped {
		return
	}
	set.dropped = true
	for _, b := range set.bufs {
		b.Zero() // a device that cannot zero is lost: its memory goes with it
	}
	if residentDropped != nil {
		residentDropped(set.bufs)
	}
	for _, b := range set.bufs {
		b.Release()
	}
	set.bufs, set.pos, set.keys = nil, nil, nil
}

// dropAll retires every current set (Engine.ReleaseBuffers and Close; a
// set still in use is dropped when its last batch ends).
func (r *residentKeys) dropAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, set := range r.sets {
		r.retire(set)
	}
}
