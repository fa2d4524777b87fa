// Command jsbench is the load program of ringbus-bench's jetstream scenario (issue 26): nats.go
// driving one JetStream server over loopback, ringbus-server or nats-server alike, one step per
// invocation, the result printed as a single JSON object on stdout; progress and errors go to
// stderr. The Java side starts each server, reads the server's CPU time around each measured
// step, runs the same steps against both and reports ratios.
//
// Steps (-mode). Setup steps are not measured; the Java side runs them outside the CPU window.
//
//	stream   a fresh stream -stream on <subject>.> (deleted first if it exists): file storage,
//	         one replica, limits retention, JetStream's defaults otherwise
//	publish  -size B -duration D -warmup W [-sync] [-window N] [-pubs P]: one publisher on the
//	         stream (P async publishers at once, each on its own connection, with -pubs);
//	         async: js.PublishMsgAsync, at most N outstanding (PublishAsyncMaxPending), retried
//	         while the client stalls (counted); -sync: js.PublishMsg, one at a time. Every message
//	         carries a Nats-Msg-Id of its own. Latency: publish call to PubAck.
//	fill     -msgs N -size B: a fresh stream filled with N messages by one async publisher
//	pull     -msgs N -batch B: a durable pull consumer, explicit ack, fetches batches of B and
//	         acks each message; done when the server reports every message acknowledged
//	push     -msgs N: a durable push consumer (ack none, flow control, idle heartbeat) reads the
//	         stream from its first message
//	ordered  -msgs N: an ordered consumer reads the stream from its first message
//	kvbucket a fresh key-value bucket -bucket (history 1)
//	kvput    -size B -keys K -duration D -warmup W: kv.Put of B bytes, keys round robin
//	kvfill   -size B -keys K: kv.Put of each key once
//	kvget    -keys K -duration D -warmup W: kv.Get, keys round robin
//
// "total" in the result is every operation the server served in the step (warm-up included),
// which the Java side divides the server's CPU time by.
//
// Build: GO111MODULE=off GOPATH=<dir>:/usr/share/gocode go build (Debian's golang-go and
// golang-github-nats-io-go-nats-dev); ringbus-bench builds it at run time (JsBench.java).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
)

type config struct {
	url      string
	mode     string
	stream   string
	subject  string
	bucket   string
	size     int
	msgs     int64
	keys     int
	window   int
	pubs     int
	batch    int
	sync     bool
	duration time.Duration
	warmup   time.Duration
	timeout  time.Duration
}

// result is every step's output; a step fills the members it measures.
type result struct {
	Mode      string  `json:"mode"`
	Messages  int64   `json:"messages"`
	Total     int64   `json:"total"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"perSecond"`
	P50Micros float64 `json:"p50Micros"`
	P99Micros float64 `json:"p99Micros"`
	MaxMicros float64 `json:"maxMicros"`
	Stalls    int64   `json:"stalls"`
	Errors    int64   `json:"errors"`
	Failure   string  `json:"failure,omitempty"`
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "", "server URL, e.g. nats://127.0.0.1:4333 (required)")
	flag.StringVar(&c.mode, "mode", "", "stream, publish, fill, pull, push, ordered, kvbucket, kvput, kvfill or kvget")
	flag.StringVar(&c.stream, "stream", "BENCH", "stream name")
	flag.StringVar(&c.subject, "subject", "bench", "subject prefix; the stream stores <subject>.>")
	flag.StringVar(&c.bucket, "bucket", "BENCH", "key-value bucket")
	flag.IntVar(&c.size, "size", 128, "payload bytes (publish, fill, kvput, kvfill)")
	flag.Int64Var(&c.msgs, "msgs", 100000, "messages (fill, pull, push, ordered)")
	flag.IntVar(&c.keys, "keys", 1000, "distinct keys (kvput, kvfill, kvget)")
	flag.IntVar(&c.window, "window", 1000, "most async publishes outstanding (publish, fill)")
	flag.IntVar(&c.pubs, "pubs", 1, "async publishers at once, each on a connection of its own (publish)")
	flag.IntVar(&c.batch, "batch", 100, "messages per fetch (pull)")
	flag.BoolVar(&c.sync, "sync", false, "publish with js.PublishMsg, waiting for each PubAck (publish)")
	flag.DurationVar(&c.duration, "duration", 2*time.Second, "measured time (publish, kvput, kvget)")
	flag.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "unmeasured time before it (publish, kvput, kvget)")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "longest a step may take")
	flag.Parse()
	if c.url == "" {
		fail("-url is required")
	}
	if c.size < 0 || c.msgs < 1 || c.keys < 1 || c.window < 1 || c.batch < 1 || c.pubs < 1 {
		fail(fmt.Sprintf("msgs, keys, window, batch and pubs must be >= 1, size >= 0: msgs=%d, keys=%d, window=%d,"+
			" batch=%d, pubs=%d, size=%d", c.msgs, c.keys, c.window, c.batch, c.pubs, c.size))
	}
	steps := map[string]func(config) (result, error){
		"stream": runStream, "publish": runPublish, "fill": runFill, "pull": runPull, "push": runPush,
		"ordered": runOrdered, "kvbucket": runBucket, "kvput": runKvPut, "kvfill": runKvFill, "kvget": runKvGet,
	}
	step, ok := steps[c.mode]
	if !ok {
		fail("unknown mode (stream, publish, fill, pull, push, ordered, kvbucket, kvput, kvfill, kvget): mode=" + c.mode)
	}
	r, err := step(c)
	if err != nil {
		fail(err.Error())
	}
	r.Mode = c.mode
	out, err := json.Marshal(r)
	if err != nil {
		fail(fmt.Sprintf("cannot write the result %+v: %v", r, err))
	}
	fmt.Println(string(out))
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "jsbench: "+msg)
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

func runStream(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-stream")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	return result{}, freshStream(js, c)
}

// timed runs op for the warm-up, then for the measured duration, one call after another, and
// reports the measured calls' rate and latencies; an error ends the step.
func timed(c config, op func(i int64) error) (result, error) {
	var total int64
	deadline := time.Now().Add(c.warmup)
	for time.Now().Before(deadline) {
		if err := op(total); err != nil {
			return result{}, fmt.Errorf("warm-up, operation %d: %v", total, err)
		}
		total++
	}
	latencies := make([]time.Duration, 0, 1<<16)
	start := time.Now()
	deadline = start.Add(c.duration)
	for {
		t0 := time.Now()
		if !t0.Before(deadline) {
			break
		}
		if err := op(total); err != nil {
			return result{}, fmt.Errorf("operation %d: %v", total, err)
		}
		latencies = append(latencies, time.Since(t0))
		total++
	}
	seconds := time.Since(start).Seconds()
	r := result{Messages: int64(len(latencies)), Total: total, Seconds: seconds,
		PerSecond: float64(len(latencies)) / seconds}
	r.P50Micros, r.P99Micros, r.MaxMicros = percentiles(latencies)
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

func progress(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "jsbench: "+format+"\n", args...)
}
