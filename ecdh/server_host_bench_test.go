package ecdh_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

// BenchmarkServerHost is the host cost per request of ecdh.Server over a
// backend that costs nothing (stubBackend): async, 16 submitters keeping
// 4,096 calls in flight each (Server.Go), the same in frames of 64
// (Server.GoFrame), and blocking, 2,048 goroutines per GOMAXPROCS
// (SharedSecret).
func BenchmarkServerHost(b *testing.B) {
	key := make([]byte, 32)
	b.Run("async", func(b *testing.B) {
		s, err := ecdh.NewServerOver(batch.Options{CPUOffload: -1}, &stubBackend{out: key})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		const submitters, window = 16, 4096
		per := b.N/submitters + 1
		var wg sync.WaitGroup
		b.ResetTimer()
		for range submitters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done := make(chan *ecdh.Call, window)
				calls := make([]ecdh.Call, window)
				inFlight := 0
				for i := range calls {
					if i >= per {
						break
					}
					calls[i] = ecdh.Call{Curve: ecdh.X25519(), Priv: key, Peer: key, Done: done}
					if err := s.Go(context.Background(), &calls[i]); err != nil {
						b.Error(err)
						return
					}
					inFlight++
				}
				for sent := inFlight; inFlight > 0; {
					c := <-done
					inFlight--
					if c.Err != nil {
						b.Error(c.Err)
						return
					}
					if sent < per {
						if err := s.Go(context.Background(), c); err != nil {
							b.Error(err)
							return
						}
						sent++
						inFlight++
					}
				}
			}()
		}
		wg.Wait()
	})
	b.Run("async-frames", func(b *testing.B) { // GoFrame, frames of 64
		s, err := ecdh.NewServerOver(batch.Options{CPUOffload: -1}, &stubBackend{out: key})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		const submitters, window, frame = 16, 4096, 64
		frames := (b.N/submitters)/frame + 1
		var wg sync.WaitGroup
		b.ResetTimer()
		for range submitters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done := make(chan *ecdh.Frame, window/frame)
				free := make([]*ecdh.Frame, window/frame)
				for i := range free {
					free[i] = &ecdh.Frame{Calls: make([]ecdh.Call, frame), Done: done}
					for k := range free[i].Calls {
						free[i].Calls[k] = ecdh.Call{Curve: ecdh.X25519(), Priv: key, Peer: key}
					}
				}
				sent, inFlight := 0, 0
				for sent < frames || inFlight > 0 {
					for sent < frames && len(free) > 0 {
						if err := s.GoFrame(context.Background(), free[len(free)-1]); err != nil {
							b.Error(err)
							return
						}
						free = free[:len(free)-1]
						sent++
						inFlight++
					}
					f := <-done
					inFlight--
					for _, c := range f.Calls {
						if c.Err != nil {
							b.Error(c.Err)
							return
						}
					}
					free = append(free, f)
				}
			}()
		}
		wg.Wait()
	})
	b.Run("blocking", func(b *testing.B) {
		s, err := ecdh.NewServerOver(batch.Options{CPUOffload: -1, MaxDelay: time.Millisecond}, &stubBackend{out: key})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.SetParallelism(2048) // 2,048 goroutines per GOMAXPROCS
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.SharedSecret(context.Background(), ecdh.X25519(), key, key); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
