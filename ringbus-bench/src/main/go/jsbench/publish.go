package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// message is a publish of size bytes to subject with a Nats-Msg-Id of its own (the run's prefix
// and a counter), as an application that relies on JetStream's duplicate detection sends it.
func message(subject, idPrefix string, n int64, data []byte) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(nats.MsgIdHdr, idPrefix+strconv.FormatInt(n, 10))
	return m
}

// publishAsync publishes, retrying while the client stalls (window full for longer than its
// 200 ms stall wait: an fsync or a busy server); it returns how many times it stalled.
func publishAsync(js nats.JetStreamContext, m *nats.Msg) (nats.PubAckFuture, int64, error) {
	var stalls int64
	for {
		f, err := js.PublishMsgAsync(m)
		if err == nil || !strings.Contains(err.Error(), "stalled") {
			return f, stalls, err
		}
		stalls++
	}
}

func runPublish(c config) (result, error) {
	if c.pubs > 1 {
		return publishMany(c)
	}
	nc, js, err := connect(c, "jsbench-publish")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	data := make([]byte, c.size)
	subject := c.subject + ".p"
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	if c.sync {
		return timed(c, func(i int64) error {
			_, err := js.PublishMsg(message(subject, prefix, i, data))
			return err
		})
	}
	r, latencies, err := publishWindow(c, js, subject, prefix, data)
	if err != nil {
		return result{}, err
	}
	r.P50Micros, r.P99Micros, r.MaxMicros = percentiles(latencies)
	return r, nil
}

// publishMany runs -pubs async publishers at once into the one stream, each on a connection of its
// own with its own window and Nats-Msg-Id prefix, all connected before any publishes. The result
// adds their counts; the rate is every measured PubAck over the longest publisher's measured time,
// and the latencies are all publishers' together.
func publishMany(c config) (result, error) {
	if c.sync {
		return result{}, fmt.Errorf("-pubs %d takes async publishers only: drop -sync", c.pubs)
	}
	conns := make([]*nats.Conn, 0, c.pubs)
	streams := make([]nats.JetStreamContext, 0, c.pubs)
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	for p := 0; p < c.pubs; p++ {
		nc, js, err := connect(c, "jsbench-publish-"+strconv.Itoa(p))
		if err != nil {
			return result{}, err
		}
		conns = append(conns, nc)
		streams = append(streams, js)
	}
	data := make([]byte, c.size)
	subject := c.subject + ".p"
	base := strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	type outcome struct {
		r         result
		latencies []time.Duration
		err       error
	}
	outcomes := make(chan outcome, c.pubs)
	for p := 0; p < c.pubs; p++ {
		go func(p int) {
			r, latencies, err := publishWindow(c, streams[p], subject, base+strconv.Itoa(p)+"-", data)
			outcomes <- outcome{r, latencies, err}
		}(p)
	}
	var all result
	var latencies []time.Duration
	var failures []string
	for p := 0; p < c.pubs; p++ {
		o := <-outcomes
		if o.err != nil {
			failures = append(failures, o.err.Error())
			continue
		}
		all.Messages += o.r.Messages
		all.Total += o.r.Total
		all.Stalls += o.r.Stalls
		all.Errors += o.r.Errors
		if o.r.Seconds > all.Seconds {
			all.Seconds = o.r.Seconds
		}
		if o.r.Failure != "" {
			failures = append(failures, o.r.Failure)
		}
		latencies = append(latencies, o.latencies...)
	}
	if len(failures) == c.pubs {
		return result{}, fmt.Errorf("every publisher failed: %s", strings.Join(failures, "; "))
	}
	if len(failures) > 0 {
		all.Failure = fmt.Sprintf("%d of %d publishers failed: %s", len(failures), c.pubs, strings.Join(failures, "; "))
	}
	if all.Seconds > 0 {
		all.PerSecond = float64(all.Messages) / all.Seconds
	}
	all.P50Micros, all.P99Micros, all.MaxMicros = percentiles(latencies)
	return all, nil
}

type pending struct {
	future  nats.PubAckFuture
	started time.Time
}

// publishWindow publishes asynchronously through the warm-up, then for the measured duration from
// the first publish after it; a collector waits for the futures in publish order (PubAcks come
// back in that order on one connection) and records each measured latency as it arrives. The
// measured time runs until the last measured PubAck. It returns the latencies for the caller to
// take percentiles of (publishMany merges several publishers').
func publishWindow(c config, js nats.JetStreamContext, subject, prefix string, data []byte) (result, []time.Duration,
	error) {
	var r result
	var latencies []time.Duration
	futures := make(chan pending, c.window+1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range futures {
			select {
			case <-f.future.Ok():
				if !f.started.IsZero() {
					latencies = append(latencies, time.Since(f.started))
				}
			case <-f.future.Err():
				r.Errors++
			}
		}
	}()
	warmEnd := time.Now().Add(c.warmup)
	var start, end time.Time
	var published int64
	var failure error
	for {
		t0 := time.Now()
		if start.IsZero() && !t0.Before(warmEnd) {
			start, end = t0, t0.Add(c.duration)
		}
		if !start.IsZero() && !t0.Before(end) {
			break
		}
		f, stalls, err := publishAsync(js, message(subject, prefix, published, data))
		r.Stalls += stalls
		if err != nil {
			failure = err
			break
		}
		published++
		if !start.IsZero() {
			r.Messages++
			futures <- pending{f, t0}
		} else {
			futures <- pending{f, time.Time{}}
		}
	}
	close(futures)
	select {
	case <-done:
	case <-time.After(c.timeout):
		return result{}, nil, fmt.Errorf("PubAcks still outstanding after %v", c.timeout)
	}
	if failure != nil {
		return result{}, nil, fmt.Errorf("publish %d: %v", published, failure)
	}
	if r.Messages > 0 {
		r.Seconds = time.Since(start).Seconds()
		r.PerSecond = float64(r.Messages) / r.Seconds
	}
	r.Total = published
	if r.Errors > 0 {
		r.Failure = fmt.Sprintf("%d of %d publishes failed", r.Errors, published)
	}
	return r, latencies, nil
}

func runFill(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-fill")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	if err := freshStream(js, c); err != nil {
		return result{}, err
	}
	data := make([]byte, c.size)
	subject := c.subject + ".fill"
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	start := time.Now()
	var r result
	for i := int64(0); i < c.msgs; i++ {
		_, stalls, err := publishAsync(js, message(subject, prefix, i, data))
		r.Stalls += stalls
		if err != nil {
			return result{}, fmt.Errorf("fill, publish %d: %v", i, err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(c.timeout):
		return result{}, fmt.Errorf("fill did not complete within %v", c.timeout)
	}
	r.Seconds = time.Since(start).Seconds()
	info, err := js.StreamInfo(c.stream)
	if err != nil {
		return result{}, err
	}
	r.Messages = int64(info.State.Msgs)
	r.Total = c.msgs
	r.PerSecond = float64(c.msgs) / r.Seconds
	if r.Messages != c.msgs {
		r.Failure = fmt.Sprintf("stream holds %d messages, %d published", r.Messages, c.msgs)
	}
	return r, nil
}
