package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

type subsStep struct {
	Subscriptions     int     `json:"subscriptions"`
	Connections       int     `json:"connections"`
	RssBeforeMiB      float64 `json:"rssBeforeMiB"`
	AddMillis         float64 `json:"addMillis"`
	RssAfterAddMiB    float64 `json:"rssAfterAddMiB"`
	RemoveMillis      float64 `json:"removeMillis"`
	RssAfterRemoveMiB float64 `json:"rssAfterRemoveMiB"`
	TimedOut          bool    `json:"timedOut"`
	Failure           *string `json:"failure"`
}

type routeResult struct {
	Seconds        float64 `json:"seconds"`
	QuietPerSecond float64 `json:"quietPerSecond"`
	ChurnPerSecond float64 `json:"churnPerSecond"`
	ChurnOpsPerSec float64 `json:"churnSubscribeUnsubscribePerSecond"`
	Delivered      int64   `json:"delivered"`
	Verified       bool    `json:"verified"`
	Failure        *string `json:"failure"`
}

type subsResult struct {
	Mode  string      `json:"mode"`
	Steps []subsStep  `json:"steps"`
	Route routeResult `json:"route"`
}

// rssMiB reads VmRSS of a process; NaN when unknown.
func rssMiB(pid int) float64 {
	if pid <= 0 {
		return -1
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(s.Text(), "VmRSS:") {
			fields := strings.Fields(s.Text()[len("VmRSS:"):])
			if kib, err := strconv.ParseFloat(fields[0], 64); err == nil {
				return kib / 1024
			}
		}
	}
	return -1
}

// runSubs adds and removes growing numbers of subscriptions over -conns connections, each step
// bounded by -step-timeout (a step past it is reported as timed out and the larger ones are
// skipped), then measures routing with and without subscription churn.
func runSubs(c config) (interface{}, error) {
	res := &subsResult{Mode: "subs"}
	sink := make(chan *nats.Msg, 1024) // every subscription's messages; none are published to them
	for step, count := range c.counts {
		st := subsStep{Subscriptions: count, Connections: c.conns}
		if step > 0 && res.Steps[step-1].Failure != nil {
			why := "skipped: a smaller step failed"
			st.Failure = &why
			res.Steps = append(res.Steps, st)
			continue
		}
		subsStepRun(c, step, &st, sink)
		res.Steps = append(res.Steps, st)
	}
	res.Route = route(c)
	return res, nil
}

func subsStepRun(c config, step int, st *subsStep, sink chan *nats.Msg) {
	w := &watch{}
	conns := make([]*nats.Conn, c.conns)
	for i := range conns {
		nc, err := connect(c.url, fmt.Sprintf("subs-%d", i), w)
		if err != nil {
			why := err.Error()
			st.Failure = &why
			return
		}
		conns[i] = nc
	}
	closeAll := func() {
		w.quiet.Store(true)
		for _, nc := range conns {
			if nc != nil {
				nc.Close()
			}
		}
	}
	defer closeAll()
	st.RssBeforeMiB = rssMiB(c.pid)
	subs := make([][]*nats.Subscription, c.conns)
	// phase runs work on every connection at once, then a flush (PING/PONG), within the deadline.
	phase := func(work func(i int, nc *nats.Conn) error) (time.Duration, string) {
		start := time.Now()
		deadline := start.Add(c.stepTimeout)
		errs := make(chan error, len(conns))
		var wg sync.WaitGroup
		for i, nc := range conns {
			wg.Add(1)
			go func(i int, nc *nats.Conn) {
				defer wg.Done()
				if err := work(i, nc); err != nil {
					errs <- err
					return
				}
				if err := nc.FlushTimeout(time.Until(deadline)); err != nil {
					errs <- fmt.Errorf("connection %d flush: %v", i, err)
				}
			}(i, nc)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(c.stepTimeout + time.Second):
			closeAll() // unblocks writers stuck on a server that stopped reading
			return time.Since(start), fmt.Sprintf("timed out after %s", c.stepTimeout)
		}
		select {
		case err := <-errs:
			if time.Now().After(deadline) {
				return time.Since(start), fmt.Sprintf("timed out after %s (%v)", c.stepTimeout, err)
			}
			return time.Since(start), err.Error()
		default:
		}
		if p := w.first(); p != "" {
			return time.Since(start), p
		}
		return time.Since(start), ""
	}
	took, why := phase(func(i int, nc *nats.Conn) error {
		n := st.Subscriptions / c.conns
		if i < st.Subscriptions%c.conns {
			n++
		}
		subs[i] = make([]*nats.Subscription, 0, n)
		for k := 0; k < n; k++ {
			s, err := nc.ChanSubscribe(fmt.Sprintf("%s.s%d.c%d.n%d", c.subject, step, i, k), sink)
			if err != nil {
				return fmt.Errorf("connection %d subscription %d: %v", i, k, err)
			}
			subs[i] = append(subs[i], s)
		}
		return nil
	})
	st.AddMillis = float64(took.Microseconds()) / 1e3
	st.RssAfterAddMiB = rssMiB(c.pid)
	if why != "" {
		st.TimedOut = strings.HasPrefix(why, "timed out")
		st.Failure = &why
		return
	}
	took, why = phase(func(i int, nc *nats.Conn) error {
		for _, s := range subs[i] {
			if err := s.Unsubscribe(); err != nil {
				return fmt.Errorf("connection %d unsubscribe: %v", i, err)
			}
		}
		return nil
	})
	st.RemoveMillis = float64(took.Microseconds()) / 1e3
	st.RssAfterRemoveMiB = rssMiB(c.pid)
	if why != "" {
		st.TimedOut = strings.HasPrefix(why, "timed out")
		st.Failure = &why
		return
	}
	progress("subs %d over %d connections: add %.0f ms, remove %.0f ms, server RSS %.0f -> %.0f -> %.0f MiB",
		st.Subscriptions, c.conns, st.AddMillis, st.RemoveMillis, st.RssBeforeMiB, st.RssAfterAddMiB, st.RssAfterRemoveMiB)
}

// route publishes 16 B messages 1 -> 1 for -route-duration quietly, then as long again while
// -churn-conns connections subscribe and unsubscribe 100 subjects at a time; every message is
// counted and checked for order.
func route(c config) routeResult {
	r := routeResult{Seconds: c.routeDuration.Seconds()}
	w := &watch{}
	fail := func(why string) routeResult {
		r.Failure = &why
		return r
	}
	pubConn, err := connect(c.url, "route-pub", w)
	if err != nil {
		return fail(err.Error())
	}
	defer pubConn.Close()
	subConn, err := connect(c.url, "route-sub", w)
	if err != nil {
		return fail(err.Error())
	}
	defer subConn.Close()
	defer w.quiet.Store(true)
	subject := c.subject + ".route"
	var received, badOrder atomic.Int64
	var next uint64
	sub, err := subConn.Subscribe(subject, func(m *nats.Msg) {
		seq := binary.BigEndian.Uint64(m.Data[4:12])
		if seq != next {
			badOrder.Add(1)
		}
		next = seq + 1
		received.Add(1)
	})
	if err != nil {
		return fail(err.Error())
	}
	_ = sub.SetPendingLimits(-1, -1)
	if err := subConn.Flush(); err != nil {
		return fail(err.Error())
	}
	payload := make([]byte, 16)
	var seq uint64
	// measure publishes for d and returns deliveries per second over that window.
	measure := func(d time.Duration) (float64, error) {
		before := received.Load()
		start := time.Now()
		for time.Since(start) < d {
			for k := 0; k < 256; k++ {
				stamp(payload, 0, seq)
				if err := pubConn.Publish(subject, payload); err != nil {
					return 0, err
				}
				seq++
			}
		}
		if err := pubConn.FlushTimeout(c.timeout); err != nil {
			return 0, err
		}
		for received.Load() < int64(seq) && time.Since(start) < d+c.timeout {
			time.Sleep(time.Millisecond)
		}
		return float64(received.Load()-before) / time.Since(start).Seconds(), nil
	}
	if r.QuietPerSecond, err = measure(c.routeDuration); err != nil {
		return fail("quiet: " + err.Error())
	}
	stop := make(chan struct{})
	var ops atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < c.churnConns; i++ {
		nc, err := connect(c.url, fmt.Sprintf("churn-%d", i), w)
		if err != nil {
			close(stop)
			return fail(err.Error())
		}
		defer nc.Close()
		wg.Add(1)
		go func(i int, nc *nats.Conn) {
			defer wg.Done()
			sink := make(chan *nats.Msg, 16)
			subs := make([]*nats.Subscription, 100)
			for round := 0; ; round++ {
				select {
				case <-stop:
					return
				default:
				}
				for k := range subs {
					s, err := nc.ChanSubscribe(fmt.Sprintf("%s.churn.%d.%d.%d", c.subject, i, round, k), sink)
					if err != nil {
						return
					}
					subs[k] = s
				}
				if nc.FlushTimeout(c.timeout) != nil {
					return
				}
				for _, s := range subs {
					_ = s.Unsubscribe()
				}
				if nc.FlushTimeout(c.timeout) != nil {
					return
				}
				ops.Add(int64(len(subs)))
			}
		}(i, nc)
	}
	churnStart := time.Now()
	r.ChurnPerSecond, err = measure(c.routeDuration)
	close(stop)
	wg.Wait()
	r.ChurnOpsPerSec = float64(ops.Load()) / time.Since(churnStart).Seconds()
	if err != nil {
		return fail("churning: " + err.Error())
	}
	r.Delivered = received.Load()
	if r.Delivered != int64(seq) || badOrder.Load() != 0 {
		return fail(fmt.Sprintf("received %d of %d, %d out of order", r.Delivered, seq, badOrder.Load()))
	}
	if p := w.first(); p != "" {
		return fail(p)
	}
	r.Verified = true
	progress("routing 1->1 16 B: %.2f M msg/s quiet, %.2f M msg/s while %d connections churn (%.0f sub+unsub/s)",
		r.QuietPerSecond/1e6, r.ChurnPerSecond/1e6, c.churnConns, r.ChurnOpsPerSec)
	return r
}
