package main

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// connectResult is a connection set-up run: connections opened until the server answered their
// first PING (nats.Connect returns then: INFO read, TLS done, CONNECT processed), then closed.
type connectResult struct {
	Mode        string  `json:"mode"`
	Connections int64   `json:"connections"`
	Parallel    int     `json:"parallel"`
	TLS         bool    `json:"tls"`
	Seconds     float64 `json:"seconds"`
	PerSecond   float64 `json:"connectionsPerSecond"`
	P50         float64 `json:"p50Micros"`
	P99         float64 `json:"p99Micros"`
	Max         float64 `json:"maxMicros"`
	Failed      int64   `json:"failed"`
	Verified    bool    `json:"verified"`
	Failure     *string `json:"failure"`
}

// runConnect opens -connects connections from -parallel goroutines, each connect, then close,
// after -warmup unrecorded ones; the rate is connections over the wall time of the measured ones.
func runConnect(c config) (interface{}, error) {
	if c.connects < 1 || c.parallel < 1 {
		return nil, fmt.Errorf("connects and parallel must be >= 1: connects=%d, parallel=%d", c.connects, c.parallel)
	}
	res := &connectResult{Mode: "connect", Connections: c.connects, Parallel: c.parallel, TLS: len(tlsOptions) > 0}
	if _, _, err := connectMany(c, c.warmup); err != nil {
		return nil, fmt.Errorf("warm-up: %v", err)
	}
	start := time.Now()
	samples, failed, err := connectMany(c, c.connects)
	elapsed := time.Since(start)
	res.Failed = failed
	if err != nil {
		why := fmt.Sprintf("%d of %d connections failed, first: %v", failed, c.connects, err)
		res.Failure = &why
		return res, nil
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) float64 {
		return float64(samples[int(q*float64(len(samples)-1))].Nanoseconds()) / 1e3
	}
	res.P50, res.P99, res.Max = at(0.50), at(0.99), at(1)
	res.Seconds = elapsed.Seconds()
	res.PerSecond = float64(c.connects) / res.Seconds
	res.Verified = true
	progress("connect: %d connections (%d at a time, tls %v) in %.2f s: %.0f /s, p50 %.0f us, p99 %.0f us",
		c.connects, c.parallel, res.TLS, res.Seconds, res.PerSecond, res.P50, res.P99)
	return res, nil
}

// connectMany opens and closes n connections over c.parallel goroutines; returns each connect's
// time, the failures and the first failure's error.
func connectMany(c config, n int64) ([]time.Duration, int64, error) {
	var next, failed atomic.Int64
	var firstErr atomic.Value
	samples := make([]time.Duration, n)
	var wg sync.WaitGroup
	for g := 0; g < c.parallel; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			options := append([]nats.Option{nats.Name(fmt.Sprintf("connect-%d", g)), nats.NoReconnect(),
				nats.Timeout(10 * time.Second)}, tlsOptions...)
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				nc, err := nats.Connect(c.url, options...)
				samples[i] = time.Since(t0)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				nc.Close()
			}
		}(g)
	}
	wg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return samples, failed.Load(), err
	}
	return samples, 0, nil
}
