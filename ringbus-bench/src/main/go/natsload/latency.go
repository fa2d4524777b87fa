package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// latencyResult is a request/reply or one-way latency run, in microseconds.
type latencyResult struct {
	Mode       string  `json:"mode"`
	Case       string  `json:"case"`
	Size       int     `json:"size"`
	TargetRate int     `json:"targetRate"`
	Messages   int64   `json:"messages"`
	Received   int64   `json:"received"`
	Seconds    float64 `json:"seconds"`
	AchievedPS float64 `json:"achievedPerSecond"`
	P50        float64 `json:"p50Micros"`
	P99        float64 `json:"p99Micros"`
	P999       float64 `json:"p999Micros"`
	Max        float64 `json:"maxMicros"`
	Verified   bool    `json:"verified"`
	Failure    *string `json:"failure"`
}

func (r *latencyResult) fill(samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(samples)-1))
		return float64(samples[i].Nanoseconds()) / 1e3
	}
	r.P50, r.P99, r.P999, r.Max = at(0.50), at(0.99), at(0.999), at(1)
}

func (r *latencyResult) failed(why string) (interface{}, error) {
	r.Failure = &why
	return r, nil
}

// runRequestReply: one responder echoing the payload, one requester with one request in flight.
func runRequestReply(c config) (interface{}, error) {
	if c.size < headerBytes {
		return nil, fmt.Errorf("size must be >= %d: size=%d", headerBytes, c.size)
	}
	res := &latencyResult{Mode: "reqrep", Case: "request/reply", Size: c.size, Messages: c.msgs}
	w := &watch{}
	responder, err := connect(c.url, "responder", w)
	if err != nil {
		return nil, err
	}
	defer responder.Close()
	requester, err := connect(c.url, "requester", w)
	if err != nil {
		return nil, err
	}
	defer requester.Close()
	defer w.quiet.Store(true)
	subject := c.subject + ".service"
	if _, err := responder.Subscribe(subject, func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		return nil, err
	}
	if err := responder.Flush(); err != nil {
		return nil, err
	}
	payload := make([]byte, c.size)
	samples := make([]time.Duration, 0, c.msgs)
	begin := time.Now()
	for i := int64(-c.warmup); i < c.msgs; i++ {
		stamp(payload, 0, uint64(i+c.warmup))
		t0 := time.Now()
		reply, err := requester.Request(subject, payload, 5*time.Second)
		d := time.Since(t0)
		if err != nil {
			return res.failed(fmt.Sprintf("request %d: %v", i+c.warmup, err))
		}
		if !bytes.Equal(reply.Data, payload) {
			return res.failed(fmt.Sprintf("request %d: the reply is not the request's payload", i+c.warmup))
		}
		if i == 0 {
			begin = time.Now()
		}
		if i >= 0 {
			samples = append(samples, d)
			res.Received++
		}
		if time.Since(begin) > c.timeout {
			return res.failed(fmt.Sprintf("timed out after %s", c.timeout))
		}
	}
	res.Seconds = time.Since(begin).Seconds()
	res.AchievedPS = float64(res.Received) / res.Seconds
	res.fill(samples)
	if p := w.first(); p != "" {
		return res.failed(p)
	}
	res.Verified = true
	progress("request/reply %d B: %d requests, p50 %.1f us, p99 %.1f us", c.size, c.msgs, res.P50, res.P99)
	return res, nil
}

// runLatency: one publisher paced at -rate, one subscriber on another connection; the latency of
// a message is measured from when the schedule said it was due (so a stalled publisher shows
// as latency instead of hiding it), to its arrival. Payload: uint64 sequence, int64 due time.
func runLatency(c config) (interface{}, error) {
	if c.size < 16 {
		return nil, fmt.Errorf("size must be >= 16: size=%d", c.size)
	}
	if c.rate < 1 {
		return nil, fmt.Errorf("rate must be >= 1: rate=%d", c.rate)
	}
	total := int64(c.rate) * int64(c.duration/time.Millisecond) / 1000
	res := &latencyResult{Mode: "latency", Case: fmt.Sprintf("one-way at %d/s", c.rate), Size: c.size,
		TargetRate: c.rate, Messages: total}
	w := &watch{}
	subConn, err := connect(c.url, "latency-sub", w)
	if err != nil {
		return nil, err
	}
	defer subConn.Close()
	pubConn, err := connect(c.url, "latency-pub", w)
	if err != nil {
		return nil, err
	}
	defer pubConn.Close()
	defer w.quiet.Store(true)
	subject := c.subject + ".latency"
	base := time.Now()
	samples := make([]time.Duration, 0, total)
	var received atomic.Int64
	var next uint64
	problem := atomic.Value{}
	done := make(chan struct{})
	warm := uint64(c.warmup)
	sub, err := subConn.Subscribe(subject, func(m *nats.Msg) {
		now := time.Since(base)
		seq := binary.BigEndian.Uint64(m.Data[0:8])
		due := time.Duration(binary.BigEndian.Uint64(m.Data[8:16]))
		if seq != next && problem.Load() == nil {
			problem.Store(fmt.Sprintf("got sequence %d, expected %d (lost or reordered)", seq, next))
		}
		next = seq + 1
		if seq >= warm {
			samples = append(samples, now-due)
			if received.Add(1) == total {
				close(done)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return nil, err
	}
	if err := subConn.Flush(); err != nil {
		return nil, err
	}
	payload := make([]byte, c.size)
	all := uint64(total) + warm
	interval := time.Second / time.Duration(c.rate)
	start := time.Since(base)
	for seq := uint64(0); seq < all; seq++ {
		due := start + time.Duration(seq)*interval
		if wait := due - time.Since(base); wait > 50*time.Microsecond {
			time.Sleep(wait)
		}
		binary.BigEndian.PutUint64(payload[0:8], seq)
		binary.BigEndian.PutUint64(payload[8:16], uint64(due))
		if err := pubConn.Publish(subject, payload); err != nil {
			return res.failed(fmt.Sprintf("publish %d: %v", seq, err))
		}
	}
	select {
	case <-done:
	case <-time.After(c.timeout):
		res.Received = received.Load()
		return res.failed(fmt.Sprintf("timed out: %d of %d received", res.Received, total))
	}
	res.Seconds = (time.Since(base) - start).Seconds()
	res.Received = received.Load()
	res.AchievedPS = float64(all) / res.Seconds
	res.fill(samples)
	if p := problem.Load(); p != nil {
		return res.failed(p.(string))
	}
	if p := w.first(); p != "" {
		return res.failed(p)
	}
	res.Verified = true
	progress("one-way %d B at %d/s: p50 %.1f us, p99 %.1f us, max %.1f us", c.size, c.rate, res.P50, res.P99, res.Max)
	return res, nil
}
