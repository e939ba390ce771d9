package aes

import (
	"testing"
)

func BenchmarkPlan1500(b *testing.B) {
	const n = 44739
	msgs := make([]Message, n)
	for i := range msgs {
		key := make([]byte, 16)
		key[0], key[1] = byte(i), byte(i>>8)
		k, _ := NewKey(key)
		msgs[i] = Message{Key: k, Nonce: make([]byte, 12), AAD: make([]byte, 13), Data: make([]byte, 1500)}
	}
	e := &Engine{segLog: 4}
	b.ResetTimer()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for range b.N {
		p := e.plan(msgs, idx, false, -1)
		_ = e.keyRecords(p, nil)
	}
}

func BenchmarkPlanOneGigabyte(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	msgs := []Message{{Key: k, Nonce: make([]byte, 12)}}
	e := &Engine{segLog: 4}
	for range b.N {
		p := e.plan(msgs, []int{0}, false, 1<<30)
		_ = e.keyRecords(p, nil)
	}
}
