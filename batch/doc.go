// Package batch holds what the batched APIs of gpucrypto share: the error
// type that reports failures per element, the request batcher behind the
// Servers, the helpers that cut a call into parallel or pipelined pieces,
// and the routes and statistics of the Engines and Servers.
//
// # Per-element errors
//
// A batch call (rsa, ecdh, ed25519, ecdsa, aes, mlkem, arith) returns one
// result per element and one error for the call: nil when every element
// succeeded, else an *Error whose Errs has one entry per element, nil for
// those that succeeded (their results are valid). Collect builds it from a slice of element errors;
// Error.Failed counts the failures, and Error.Unwrap lets errors.Is and
// errors.As find an element's error (rsa.ErrDecryption, ecdh.ErrLowOrder,
// aes.ErrOpen, ...). Any other error fails the whole call.
//
// # Batcher
//
// A Batcher (New) gathers single requests from many goroutines (Do) into
// batches and hands each batch to a free worker, a RunFunc, one per device
// say, each running up to Options.Pipeline batches at once. A batch is cut
// when a worker is free to take it, from everything waiting up to
// Options.MaxBatch, so batches grow with the load; Options.MaxDelay only
// bounds how long a request waits for company while every worker is idle.
// A full queue (Options.QueueSize) blocks callers; a caller's context
// cancels its wait. NewWithCPU adds a CPU path for single requests: while
// a batch would make a request wait longer than the CPU takes to compute
// it, and fewer than Options.CPUOffload requests are on the CPU, Do computes
// it at once in the caller's goroutine. Go is the asynchronous form of Do:
// it submits a request and returns, and the request's Completer receives
// its outcome, for a caller that holds many requests at once; GoMany
// submits a frame of them with one lock and one clock reading (ecdh's
// Server.GoFrame answers such a frame with one send; a send per request
// is a large part of the host's time at millions of requests a second). Close
// finishes the queued requests; Do and Go then return ErrClosed. The
// Servers of packages rsa, ecdh, ed25519, ecdsa, aes and mlkem are built
// on it, through one shell (internal/engine.Server).
//
// Requests wait in shards, each with its own lock and count, that a free
// worker empties into its batch: no channel, lock or counter is written
// by every request, no goroutine handles them one by one, and a request
// costs no allocation (its record is kept by value; the channel a blocking
// caller waits on is pooled). A context that can end costs a blocking
// caller a select on its Done channel: one context shared by thousands of
// callers makes them all lock that channel (see Batcher.Do).
//
// # Cutting a call into pieces
//
// Parallel runs a function on one contiguous range per core; Each computes
// a value and an error per element on all cores and collects the errors
// into an *Error. Chunks cuts a large call into ranges and runs them a few
// at a time, so that the host work of one range overlaps the device work
// of another; EvenChunk sizes the ranges about equally.
//
// # Routes and statistics
//
// Route says where an Engine computes its calls (RouteAuto, the default:
// where measured faster; RouteDevice; RouteCPU). Stats are an Engine's or
// a Server's counts (operations on the device and on the CPU, fallbacks,
// batches, queue depth, latency, device time); a Meter counts a Server's
// requests (Options.Meter).
package batch
