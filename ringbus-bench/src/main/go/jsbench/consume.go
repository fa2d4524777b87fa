package main

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

func runPull(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-pull")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	durable := "pullbench"
	_ = js.DeleteConsumer(c.stream, durable)
	start := time.Now()
	sub, err := js.PullSubscribe(c.subject+".>", durable, nats.AckExplicit(), nats.DeliverAll(),
		nats.BindStream(c.stream), nats.MaxAckPending(c.batch*10))
	if err != nil {
		return result{}, fmt.Errorf("pull consumer: %v", err)
	}
	deadline := time.Now().Add(c.timeout)
	var count int64
	for count < c.msgs {
		if time.Now().After(deadline) {
			return result{}, fmt.Errorf("pull read %d of %d messages within %v", count, c.msgs, c.timeout)
		}
		want := c.batch
		if left := c.msgs - count; left < int64(want) {
			want = int(left)
		}
		msgs, err := sub.Fetch(want, nats.MaxWait(5*time.Second))
		if err != nil && !errors.Is(err, nats.ErrTimeout) {
			return result{}, fmt.Errorf("fetch after %d messages: %v", count, err)
		}
		for _, m := range msgs {
			if err := m.Ack(); err != nil {
				return result{}, fmt.Errorf("ack: %v", err)
			}
			count++
		}
	}
	// Acks are fire-and-forget: done once the server has applied every one.
	for {
		info, err := js.ConsumerInfo(c.stream, durable)
		if err != nil {
			return result{}, fmt.Errorf("consumer info: %v", err)
		}
		if info.NumAckPending == 0 && info.AckFloor.Stream >= uint64(c.msgs) {
			break
		}
		if time.Now().After(deadline) {
			return result{}, fmt.Errorf("server still has %d messages unacknowledged (ack floor %d) after %v",
				info.NumAckPending, info.AckFloor.Stream, c.timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	seconds := time.Since(start).Seconds()
	_ = sub.Unsubscribe()
	_ = js.DeleteConsumer(c.stream, durable)
	return result{Messages: count, Total: count, Seconds: seconds, PerSecond: float64(count) / seconds}, nil
}

func runPush(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-push")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	durable := "pushbench"
	_ = js.DeleteConsumer(c.stream, durable)
	r, err := replay(c, js, nats.Durable(durable), nats.AckNone(), nats.EnableFlowControl(),
		nats.IdleHeartbeat(5*time.Second))
	_ = js.DeleteConsumer(c.stream, durable)
	return r, err
}

func runOrdered(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-ordered")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	return replay(c, js, nats.OrderedConsumer())
}

// replay reads the stream from its first message with a push subscription made with opts, until
// -msgs messages arrived, and checks they came in stream order.
func replay(c config, js nats.JetStreamContext, opts ...nats.SubOpt) (result, error) {
	var count int64
	var last uint64
	var outOfOrder int64
	done := make(chan struct{})
	start := time.Now()
	opts = append(opts, nats.DeliverAll(), nats.BindStream(c.stream))
	sub, err := js.Subscribe(c.subject+".>", func(m *nats.Msg) {
		if meta, err := m.Metadata(); err == nil {
			if meta.Sequence.Stream != last+1 {
				outOfOrder++
			}
			last = meta.Sequence.Stream
		}
		if atomic.AddInt64(&count, 1) == c.msgs {
			close(done)
		}
	}, opts...)
	if err != nil {
		return result{}, fmt.Errorf("subscribe: %v", err)
	}
	defer sub.Unsubscribe()
	// Flow control keeps the server from cutting the subscriber off as slow.
	_ = sub.SetPendingLimits(-1, -1)
	select {
	case <-done:
	case <-time.After(c.timeout):
		return result{}, fmt.Errorf("replay read %d of %d messages within %v", atomic.LoadInt64(&count), c.msgs,
			c.timeout)
	}
	seconds := time.Since(start).Seconds()
	n := atomic.LoadInt64(&count)
	r := result{Messages: n, Total: n, Seconds: seconds, PerSecond: float64(n) / seconds}
	if outOfOrder > 0 {
		r.Failure = fmt.Sprintf("%d messages out of stream order", outOfOrder)
	}
	return r, nil
}
