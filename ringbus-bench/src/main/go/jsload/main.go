// Command jsload is the JetStream side of ringbus-bench's storage scenario: the NATS Go client
// (nats.go) driving a nats-server's JetStream file store, one measurement per invocation, the
// result printed as a single JSON object on stdout; progress and errors go to stderr. The Java
// side starts the server, runs this program and the same measurement on ringbus's local store, and
// reports ratios.
//
// Modes (-mode):
//
//	publish  -pubs P -size B -duration D -warmup W [-sync] [-window N]: a fresh stream, P
//	         publishers, each on its own connection; async: js.PublishAsync with at most N
//	         outstanding (PublishAsyncMaxPending), then PublishAsyncComplete; -sync: js.Publish,
//	         one at a time. Latency: publish call to PubAck, per message of the measured part.
//	fill     -msgs N -size B: a fresh stream filled with N messages by one async publisher
//	replay   -msgs N: an ordered consumer reads the stream from its first message, N messages
//	ack      -msgs N -batch B: a durable pull consumer fetches batches of B and acks each message;
//	         done when the server reports every message acknowledged
//	first    -msgs 1: how long until the stream's first message can be read (after a restart)
//
// Build: GO111MODULE=off GOPATH=<dir>:/usr/share/gocode go build (Debian's golang-go and
// golang-github-nats-io-go-nats-dev); ringbus-bench builds it at run time (JsLoad.java).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

type config struct {
	url      string
	mode     string
	stream   string
	subject  string
	pubs     int
	size     int
	msgs     int64
	window   int
	batch    int
	sync     bool
	duration time.Duration
	warmup   time.Duration
	timeout  time.Duration
}

// result is every mode's output; a mode fills the members it measures.
type result struct {
	Mode      string  `json:"mode"`
	Messages  int64   `json:"messages"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"perSecond"`
	P50Micros float64 `json:"p50Micros"`
	P99Micros float64 `json:"p99Micros"`
	MaxMicros float64 `json:"maxMicros"`
	Errors    int64   `json:"errors"`
	Failure   string  `json:"failure,omitempty"`
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "", "server URL, e.g. nats://127.0.0.1:4333 (required)")
	flag.StringVar(&c.mode, "mode", "publish", "publish, fill, replay, ack or first")
	flag.StringVar(&c.stream, "stream", "BENCH", "stream name")
	flag.StringVar(&c.subject, "subject", "bench", "subject prefix; the stream stores <subject>.>")
	flag.IntVar(&c.pubs, "pubs", 1, "publishers, each its own connection (publish)")
	flag.IntVar(&c.size, "size", 128, "payload bytes (publish, fill)")
	flag.Int64Var(&c.msgs, "msgs", 1000000, "messages (fill, replay, ack)")
	flag.IntVar(&c.window, "window", 1000, "most async publishes outstanding per publisher (publish, fill)")
	flag.IntVar(&c.batch, "batch", 100, "messages per pull request (ack)")
	flag.BoolVar(&c.sync, "sync", false, "publish with js.Publish, waiting for each PubAck (publish)")
	flag.DurationVar(&c.duration, "duration", 2*time.Second, "measured publishing time (publish)")
	flag.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "unmeasured publishing before it (publish)")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "longest a run may take")
	flag.Parse()
	if c.url == "" {
		fail("-url is required")
	}
	if c.pubs < 1 || c.size < 0 || c.msgs < 1 || c.window < 1 || c.batch < 1 {
		fail(fmt.Sprintf("pubs, msgs, window and batch must be >= 1, size >= 0: pubs=%d, msgs=%d, window=%d,"+
			" batch=%d, size=%d", c.pubs, c.msgs, c.window, c.batch, c.size))
	}
	var r result
	var err error
	switch c.mode {
	case "publish":
		r, err = runPublish(c)
	case "fill":
		r, err = runFill(c)
	case "replay":
		r, err = runReplay(c)
	case "ack":
		r, err = runAck(c)
	case "first":
		r, err = runFirst(c)
	default:
		fail("unknown mode (publish, fill, replay, ack, first): mode=" + c.mode)
	}
	if err != nil {
		fail(err.Error())
	}
	r.Mode = c.mode
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "jsload: "+msg)
	os.Exit(1)
}

func connect(c config, name string) (*nats.Conn, nats.JetStreamContext, error) {
	nc, err := nats.Connect(c.url, nats.Name(name), nats.Timeout(10*time.Second))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot connect to %s: %v", c.url, err)
	}
	js, err := nc.JetStream(nats.PublishAsyncMaxPending(c.window), nats.MaxWait(30*time.Second))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// freshStream deletes the stream if it exists and creates it: file storage, one replica, limits
// retention, no limits (JetStream's defaults otherwise, duplicate window included).
func freshStream(js nats.JetStreamContext, c config) error {
	if err := js.DeleteStream(c.stream); err != nil && !errors.Is(err, nats.ErrStreamNotFound) {
		return fmt.Errorf("delete stream %s: %v", c.stream, err)
	}
	_, err := js.AddStream(&nats.StreamConfig{Name: c.stream, Subjects: []string{c.subject + ".>"},
		Storage: nats.FileStorage, Replicas: 1, Retention: nats.LimitsPolicy})
	if err != nil {
		return fmt.Errorf("add stream %s: %v", c.stream, err)
	}
	return nil
}

// publishAsync publishes, retrying while the client stalls (window full for longer than its
// 200 ms stall wait: an fsync or a busy server).
func publishAsync(js nats.JetStreamContext, subject string, data []byte) (nats.PubAckFuture, error) {
	for {
		f, err := js.PublishAsync(subject, data)
		if err == nil || !strings.Contains(err.Error(), "stalled") {
			return f, err
		}
	}
}

type pending struct {
	future  nats.PubAckFuture
	started time.Time
}

// Phases of a publish run, read by every publisher.
const (
	warming   = 0
	measuring = 1
	stopping  = 2
)

func runPublish(c config) (result, error) {
	admin, ajs, err := connect(c, "jsload-admin")
	if err != nil {
		return result{}, err
	}
	defer admin.Close()
	if err := freshStream(ajs, c); err != nil {
		return result{}, err
	}
	var phase int32
	var measuredStart time.Time
	type publisher struct {
		count     int64
		errors    int64
		latencies []time.Duration
	}
	pubs := make([]*publisher, c.pubs)
	conns := make([]*nats.Conn, c.pubs)
	contexts := make([]nats.JetStreamContext, c.pubs)
	for i := range pubs {
		pubs[i] = &publisher{latencies: make([]time.Duration, 0, 1<<16)}
		conns[i], contexts[i], err = connect(c, fmt.Sprintf("jsload-pub-%d", i))
		if err != nil {
			return result{}, err
		}
		defer conns[i].Close()
	}
	var wg sync.WaitGroup
	for i := range pubs {
		wg.Add(1)
		go func(p *publisher, js nats.JetStreamContext, subject string) {
			defer wg.Done()
			data := make([]byte, c.size)
			if c.sync {
				for {
					ph := atomic.LoadInt32(&phase)
					if ph == stopping {
						return
					}
					start := time.Now()
					_, err := js.Publish(subject, data)
					if ph == measuring {
						if err != nil {
							p.errors++
							continue
						}
						p.latencies = append(p.latencies, time.Since(start))
						p.count++
					}
				}
			}
			// Async: a collector waits for the futures in publish order (PubAcks come back in
			// that order on one connection) and records each latency as it arrives.
			futures := make(chan pending, c.window+1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for f := range futures {
					select {
					case <-f.future.Ok():
						if !f.started.IsZero() {
							p.latencies = append(p.latencies, time.Since(f.started))
						}
					case <-f.future.Err():
						p.errors++
					}
				}
			}()
			for {
				ph := atomic.LoadInt32(&phase)
				if ph == stopping {
					break
				}
				start := time.Now()
				f, err := publishAsync(js, subject, data)
				if err != nil {
					p.errors++
					continue
				}
				if ph == measuring {
					p.count++
					futures <- pending{f, start}
				} else {
					futures <- pending{f, time.Time{}}
				}
			}
			close(futures)
			<-done
			<-js.PublishAsyncComplete()
		}(pubs[i], contexts[i], fmt.Sprintf("%s.p%d", c.subject, i))
	}
	time.Sleep(c.warmup)
	measuredStart = time.Now()
	atomic.StoreInt32(&phase, measuring)
	time.Sleep(c.duration)
	atomic.StoreInt32(&phase, stopping)
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(c.timeout):
		return result{}, fmt.Errorf("publishers did not finish within %v", c.timeout)
	}
	seconds := time.Since(measuredStart).Seconds()
	var all []time.Duration
	r := result{Seconds: seconds}
	for _, p := range pubs {
		r.Messages += p.count
		r.Errors += p.errors
		all = append(all, p.latencies...)
	}
	r.PerSecond = float64(r.Messages) / seconds
	r.P50Micros, r.P99Micros, r.MaxMicros = percentiles(all)
	if r.Errors > 0 {
		r.Failure = fmt.Sprintf("%d publishes failed", r.Errors)
	}
	// Leave the disk as found: the next case starts from an empty store.
	if err := ajs.DeleteStream(c.stream); err != nil {
		progress("delete stream %s: %v", c.stream, err)
	}
	return r, nil
}

func percentiles(latencies []time.Duration) (p50, p99, max float64) {
	if len(latencies) == 0 {
		return 0, 0, 0
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(latencies)-1))
		return float64(latencies[i].Nanoseconds()) / 1e3
	}
	return at(0.50), at(0.99), at(1.0)
}

func runFill(c config) (result, error) {
	nc, js, err := connect(c, "jsload-fill")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	if err := freshStream(js, c); err != nil {
		return result{}, err
	}
	data := make([]byte, c.size)
	subject := c.subject + ".fill"
	start := time.Now()
	var errs int64
	for i := int64(0); i < c.msgs; i++ {
		if _, err := publishAsync(js, subject, data); err != nil {
			errs++
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(c.timeout):
		return result{}, fmt.Errorf("fill did not complete within %v", c.timeout)
	}
	seconds := time.Since(start).Seconds()
	info, err := js.StreamInfo(c.stream)
	if err != nil {
		return result{}, err
	}
	r := result{Messages: int64(info.State.Msgs), Seconds: seconds, PerSecond: float64(c.msgs) / seconds, Errors: errs}
	if r.Messages != c.msgs {
		r.Failure = fmt.Sprintf("stream holds %d messages, %d published", r.Messages, c.msgs)
	}
	return r, nil
}

func runReplay(c config) (result, error) {
	nc, js, err := connect(c, "jsload-replay")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	var count int64
	var last uint64
	var outOfOrder int64
	done := make(chan struct{})
	start := time.Now()
	sub, err := js.Subscribe(c.subject+".>", func(m *nats.Msg) {
		meta, err := m.Metadata()
		if err == nil {
			if meta.Sequence.Stream != last+1 {
				outOfOrder++
			}
			last = meta.Sequence.Stream
		}
		count++
		if count == c.msgs {
			close(done)
		}
	}, nats.OrderedConsumer(), nats.DeliverAll(), nats.BindStream(c.stream))
	if err != nil {
		return result{}, fmt.Errorf("ordered consumer: %v", err)
	}
	defer sub.Unsubscribe()
	// The ordered consumer's flow control keeps the server from cutting it off as slow.
	_ = sub.SetPendingLimits(-1, -1)
	select {
	case <-done:
	case <-time.After(c.timeout):
		return result{}, fmt.Errorf("replay read %d of %d messages within %v", atomic.LoadInt64(&count), c.msgs, c.timeout)
	}
	seconds := time.Since(start).Seconds()
	r := result{Messages: count, Seconds: seconds, PerSecond: float64(count) / seconds}
	if outOfOrder > 0 {
		r.Failure = fmt.Sprintf("%d messages out of stream order", outOfOrder)
	}
	return r, nil
}

func runAck(c config) (result, error) {
	nc, js, err := connect(c, "jsload-ack")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	durable := "ackbench"
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
			return result{}, fmt.Errorf("ack read %d of %d messages within %v", count, c.msgs, c.timeout)
		}
		want := c.batch
		if left := c.msgs - count; left < int64(want) {
			want = int(left)
		}
		msgs, err := sub.Fetch(want, nats.MaxWait(5*time.Second))
		if err != nil && !errors.Is(err, nats.ErrTimeout) {
			return result{}, fmt.Errorf("fetch: %v", err)
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
			return result{}, fmt.Errorf("server still has %d messages unacknowledged after %v", info.NumAckPending,
				c.timeout)
		}
		time.Sleep(time.Millisecond)
	}
	seconds := time.Since(start).Seconds()
	_ = sub.Unsubscribe()
	_ = js.DeleteConsumer(c.stream, durable)
	return result{Messages: count, Seconds: seconds, PerSecond: float64(count) / seconds}, nil
}

// runFirst connects (retrying while the server starts) and reads the stream's first message.
func runFirst(c config) (result, error) {
	start := time.Now()
	deadline := start.Add(c.timeout)
	for {
		nc, js, err := connect(c, "jsload-first")
		if err == nil {
			var msg *nats.RawStreamMsg
			msg, err = js.GetMsg(c.stream, 1)
			nc.Close()
			if err == nil && msg.Sequence == 1 {
				return result{Messages: 1, Seconds: time.Since(start).Seconds()}, nil
			}
		}
		if time.Now().After(deadline) {
			return result{}, fmt.Errorf("no first message within %v: %v", c.timeout, err)
		}
		time.Sleep(time.Millisecond)
	}
}

func progress(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "jsload: "+format+"\n", args...)
}
