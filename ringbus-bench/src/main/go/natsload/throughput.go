package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// throughputResult is one verified (or failed) run of a throughput case.
type throughputResult struct {
	Mode         string  `json:"mode"`
	Case         string  `json:"case"`
	Publishers   int     `json:"publishers"`
	Subscribers  int     `json:"subscribers"`
	Pairs        int     `json:"pairs"`
	Size         int     `json:"size"`
	Messages     int64   `json:"messages"`
	Deliveries   int64   `json:"deliveries"`
	Received     int64   `json:"received"`
	PublishNanos int64   `json:"publishNanos"`
	DeliverNanos int64   `json:"deliverNanos"`
	PublishedPS  float64 `json:"publishedPerSecond"`
	DeliveredPS  float64 `json:"deliveriesPerSecond"`
	Verified     bool    `json:"verified"`
	Failure      *string `json:"failure"`
}

// group is one subject with its publishers and subscribers.
type group struct {
	subject    string
	publishers []int // global publisher indexes
	subs       int
}

// layout turns the flags into groups: N pairs, or one subject with P publishers and S subscribers.
func layout(c config) ([]group, string) {
	var groups []group
	if c.pairs > 0 {
		for i := 0; i < c.pairs; i++ {
			groups = append(groups, group{subject: fmt.Sprintf("%s.pair%d", c.subject, i), publishers: []int{i}, subs: 1})
		}
		return groups, fmt.Sprintf("%d pairs", c.pairs)
	}
	g := group{subject: c.subject, subs: c.subs}
	for p := 0; p < c.pubs; p++ {
		g.publishers = append(g.publishers, p)
	}
	name := fmt.Sprintf("%d->%d", c.pubs, c.subs)
	if c.subs == 0 {
		name = fmt.Sprintf("%d pub only", c.pubs)
	}
	return append(groups, g), name
}

func runThroughput(c config) (interface{}, error) {
	if c.size < headerBytes {
		return nil, fmt.Errorf("size must be >= %d: size=%d", headerBytes, c.size)
	}
	groups, name := layout(c)
	publishers := 0
	for _, g := range groups {
		publishers += len(g.publishers)
	}
	if c.msgs < int64(publishers) {
		return nil, fmt.Errorf("msgs must be >= publishers (%d): msgs=%d", publishers, c.msgs)
	}
	perPublisher := make([]int64, publishers)
	for p := range perPublisher {
		perPublisher[p] = c.msgs / int64(publishers)
		if int64(p) < c.msgs%int64(publishers) {
			perPublisher[p]++
		}
	}
	res := &throughputResult{Mode: "throughput", Case: name, Publishers: publishers, Pairs: c.pairs, Size: c.size,
		Messages: c.msgs}
	w := &watch{}
	var conns []*nats.Conn
	defer func() {
		w.quiet.Store(true)
		for _, nc := range conns {
			nc.Close()
		}
	}()
	base := time.Now()
	var counters []*counter
	type pub struct {
		nc      *nats.Conn
		index   int
		subject string
	}
	var pubs []pub
	for gi, g := range groups {
		expect := map[int]int64{}
		for _, p := range g.publishers {
			expect[p] = perPublisher[p]
		}
		for s := 0; s < g.subs; s++ {
			nc, err := connect(c.url, fmt.Sprintf("sub-%d-%d", gi, s), w)
			if err != nil {
				return nil, err
			}
			conns = append(conns, nc)
			ctr := newCounter(base, expect)
			sub, err := nc.Subscribe(g.subject, ctr.onMsg)
			if err != nil {
				return nil, err
			}
			// Unlimited: the client never drops, so a loss can only be the server's.
			if err := sub.SetPendingLimits(-1, -1); err != nil {
				return nil, err
			}
			if err := nc.Flush(); err != nil {
				return nil, err
			}
			counters = append(counters, ctr)
			res.Subscribers++
			res.Deliveries += ctr.expected
		}
		for _, p := range g.publishers {
			nc, err := connect(c.url, fmt.Sprintf("pub-%d", p), w)
			if err != nil {
				return nil, err
			}
			conns = append(conns, nc)
			pubs = append(pubs, pub{nc, p, g.subject})
		}
	}
	release := make(chan struct{})
	var wg sync.WaitGroup
	pubErr := make(chan error, len(pubs))
	var publishEnd sync.Map
	for _, p := range pubs {
		wg.Add(1)
		go func(p pub) {
			defer wg.Done()
			payload := make([]byte, c.size)
			<-release
			n := perPublisher[p.index]
			for seq := int64(0); seq < n; seq++ {
				stamp(payload, p.index, uint64(seq))
				if err := p.nc.Publish(p.subject, payload); err != nil {
					pubErr <- fmt.Errorf("publisher %d: %v", p.index, err)
					return
				}
			}
			// FlushTimeout returns when the server answered PONG: it has read every message.
			if err := p.nc.FlushTimeout(c.timeout); err != nil {
				pubErr <- fmt.Errorf("publisher %d flush: %v", p.index, err)
				return
			}
			publishEnd.Store(p.index, time.Since(base))
		}(p)
	}
	start := time.Since(base)
	close(release)
	deadline := time.After(c.timeout)
	failure := ""
	for _, ctr := range counters {
		if failure != "" {
			break
		}
		select {
		case <-ctr.done:
		case err := <-pubErr:
			failure = err.Error()
		case <-deadline:
			failure = fmt.Sprintf("timed out after %s", c.timeout)
		}
	}
	if failure == "" {
		// Publishers finish (flush) after or near the last delivery; wait for them too.
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case err := <-pubErr:
			failure = err.Error()
		case <-deadline:
			failure = fmt.Sprintf("publishers timed out after %s", c.timeout)
		}
	}
	select {
	case err := <-pubErr:
		if failure == "" {
			failure = err.Error()
		}
	default:
	}
	var lastPublish time.Duration
	publishEnd.Range(func(_, v interface{}) bool {
		if d := v.(time.Duration); d > lastPublish {
			lastPublish = d
		}
		return true
	})
	var lastDelivery int64
	for _, ctr := range counters {
		res.Received += ctr.received.Load()
		if at := ctr.lastAt.Load(); at > lastDelivery {
			lastDelivery = at
		}
	}
	if failure == "" {
		// Let anything unexpected (a duplicate) arrive before the verdict.
		for _, nc := range conns {
			_ = nc.FlushTimeout(5 * time.Second)
		}
		for i, ctr := range counters {
			if v := ctr.verdict(); v != "" {
				failure = fmt.Sprintf("subscriber %d: %s", i, v)
				break
			}
		}
	}
	if failure == "" {
		failure = w.first()
	}
	res.PublishNanos = int64(lastPublish - start)
	if len(counters) == 0 {
		res.DeliverNanos = res.PublishNanos
	} else {
		res.DeliverNanos = lastDelivery - int64(start)
	}
	if failure != "" {
		counts := ""
		for _, ctr := range counters {
			counts += fmt.Sprintf(" %d/%d", ctr.received.Load(), ctr.expected)
		}
		failure = fmt.Sprintf("%s; received per subscriber:%s", failure, counts)
		res.Failure = &failure
		return res, nil
	}
	res.Verified = true
	res.PublishedPS = float64(res.Messages) * 1e9 / float64(res.PublishNanos)
	if res.Deliveries > 0 {
		res.DeliveredPS = float64(res.Deliveries) * 1e9 / float64(res.DeliverNanos)
	} else {
		res.DeliveredPS = res.PublishedPS
	}
	progress("%s %d B: %d msgs, %.2f M msg/s published, %.2f M deliveries/s", name, c.size, c.msgs,
		res.PublishedPS/1e6, res.DeliveredPS/1e6)
	return res, nil
}
