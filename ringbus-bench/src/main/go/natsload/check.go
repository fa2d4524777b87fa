package main

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// headerBytes is the publisher index (uint32) plus the sequence number (uint64).
const headerBytes = 12

// stamp writes the publisher and sequence into a reused payload; nats.go copies the payload
// into its write buffer inside Publish, so one buffer per publisher is safe.
func stamp(payload []byte, publisher int, seq uint64) {
	binary.BigEndian.PutUint32(payload[0:4], uint32(publisher))
	binary.BigEndian.PutUint64(payload[4:12], seq)
}

// counter is one subscriber's verification: every expected publisher's messages once, in order.
// Called by one subscription's handler goroutine; read by others after done is closed or via
// the atomics.
type counter struct {
	next     map[int]uint64 // publisher -> next expected sequence
	expected int64
	received atomic.Int64
	lastAt   atomic.Int64 // nanoseconds since base of the last message
	base     time.Time
	mu       sync.Mutex
	problem  string
	done     chan struct{}
	closed   bool
}

func newCounter(base time.Time, perPublisher map[int]int64) *counter {
	c := &counter{next: map[int]uint64{}, base: base, done: make(chan struct{})}
	for p, n := range perPublisher {
		c.next[p] = 0
		c.expected += n
	}
	if c.expected == 0 {
		close(c.done)
		c.closed = true
	}
	return c
}

// onMsg checks one delivery; the handler of a nats.go subscription.
func (c *counter) onMsg(m *nats.Msg) {
	n := c.received.Add(1)
	c.lastAt.Store(int64(time.Since(c.base)))
	if len(m.Data) < headerBytes {
		c.fail(fmt.Sprintf("payload of %d bytes, shorter than its header", len(m.Data)))
	} else {
		p := int(binary.BigEndian.Uint32(m.Data[0:4]))
		seq := binary.BigEndian.Uint64(m.Data[4:12])
		want, known := c.next[p]
		switch {
		case !known:
			c.fail(fmt.Sprintf("message from unknown publisher %d", p))
		case seq != want:
			c.fail(fmt.Sprintf("publisher %d: got sequence %d, expected %d (lost, duplicated or reordered)", p, seq, want))
			c.next[p] = seq + 1
		default:
			c.next[p] = seq + 1
		}
	}
	if n == c.expected {
		c.mu.Lock()
		if !c.closed {
			c.closed = true
			close(c.done)
		}
		c.mu.Unlock()
	} else if n > c.expected {
		c.fail(fmt.Sprintf("%d messages received, %d expected (duplicates)", n, c.expected))
	}
}

func (c *counter) fail(why string) {
	c.mu.Lock()
	if c.problem == "" {
		c.problem = why
	}
	c.mu.Unlock()
}

func (c *counter) verdict() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.problem
}

// watch collects what the server and the client report asynchronously: -ERR, slow consumers,
// disconnects.
type watch struct {
	mu       sync.Mutex
	problems []string
	quiet    atomic.Bool // set once the run is over: closing connections is expected then
}

func (w *watch) add(p string) {
	if w.quiet.Load() {
		return
	}
	w.mu.Lock()
	w.problems = append(w.problems, p)
	w.mu.Unlock()
}

func (w *watch) first() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) == 0 {
		return ""
	}
	return w.problems[0]
}

// connect opens a connection that never reconnects (over TLS with -tls-ca) and reports every
// problem to w.
func connect(url, name string, w *watch) (*nats.Conn, error) {
	return nats.Connect(url, append([]nats.Option{nats.Name(name), nats.NoReconnect(), nats.Timeout(10 * time.Second),
		nats.ReconnectBufSize(-1),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			subj := ""
			if s != nil {
				subj = " on " + s.Subject
			}
			w.add(fmt.Sprintf("%s: %v%s", name, err, subj))
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			w.add(fmt.Sprintf("%s: disconnected: %v", name, err))
		})}, tlsOptions...)...)
}
