// Command natsload is ringbus-bench's second load generator: the NATS Go client (nats.go), the
// client most NATS users run, driving any NATS server. It runs one measurement per invocation
// and prints the result as a single JSON object on stdout; progress and errors go to stderr.
// ringbus-bench (Java) starts the servers, runs this program against each, and reports ratios.
//
// Modes (-mode):
//
//	throughput  -pubs P -subs S [-pairs N] -size B -msgs M: publish only (S=0), 1->1, 1->N, N->1,
//	            or N independent pairs (-pairs N, each pair its own subject); every delivery is
//	            counted and checked for loss, duplicates and per-publisher order
//	reqrep      -msgs M -size B: one requester, one responder, sequential requests; p50/p99
//	latency     -rate R -duration D -size B: one-way latency of a publisher paced at R msg/s
//	subs        -counts 10000,100000 -conns 100 -pid PID: time and server RSS to add and remove
//	            subscriptions, then routing throughput while subscriptions churn
//	soak        -duration D: mixed publishers, fast, slow and never-reading subscribers,
//	            connection churn; the fast subscribers must get every message
//	connect     -connects N -parallel P: connection set-up rate, each connection opened until
//	            the server answered its first PING, then closed
//
// With -tls-ca FILE every connection uses TLS, trusting that CA (the server's name is checked).
//
// Payload layout of the counted modes (big-endian): uint32 publisher, uint64 sequence, zeros.
// Build: GO111MODULE=off GOPATH=<dir>:/usr/share/gocode go build (Debian's golang-go and
// golang-github-nats-io-go-nats-dev; bin/bench does it).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// config holds every flag; each mode reads the ones it needs.
type config struct {
	url           string
	mode          string
	pubs          int
	subs          int
	pairs         int
	size          int
	msgs          int64
	subject       string
	timeout       time.Duration
	rate          int
	duration      time.Duration
	warmup        int64
	counts        []int
	conns         int
	pid           int
	stepTimeout   time.Duration
	routeDuration time.Duration
	churnConns    int
	connects      int64
	parallel      int
}

func main() {
	var c config
	var counts string
	flag.StringVar(&c.url, "url", "", "server URL, e.g. nats://127.0.0.1:4333 (required)")
	flag.StringVar(&c.mode, "mode", "throughput", "throughput, reqrep, latency, subs, soak or connect")
	flag.IntVar(&c.pubs, "pubs", 1, "publisher connections (throughput)")
	flag.IntVar(&c.subs, "subs", 1, "subscriber connections (throughput); 0 = publish only")
	flag.IntVar(&c.pairs, "pairs", 0, "N independent publisher->subscriber pairs, each its own subject (throughput)")
	flag.IntVar(&c.size, "size", 16, "payload bytes")
	flag.Int64Var(&c.msgs, "msgs", 100000, "messages per run, over all publishers (throughput, reqrep)")
	flag.StringVar(&c.subject, "subject", "natsload", "subject prefix; a fresh one per run")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "longest a run may take")
	flag.IntVar(&c.rate, "rate", 10000, "messages per second (latency, soak per publisher)")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "how long to publish (latency, soak)")
	flag.Int64Var(&c.warmup, "warmup", 1000, "unrecorded requests or messages first (reqrep, latency)")
	flag.StringVar(&counts, "counts", "10000,100000,1000000", "subscription counts to add and remove (subs)")
	flag.IntVar(&c.conns, "conns", 100, "connections holding the subscriptions (subs)")
	flag.IntVar(&c.pid, "pid", 0, "the server's process id, to read its RSS from /proc (subs)")
	flag.DurationVar(&c.stepTimeout, "step-timeout", 60*time.Second, "longest one subs step may take")
	flag.DurationVar(&c.routeDuration, "route-duration", 3*time.Second, "routing measurement, quiet and churning (subs)")
	flag.IntVar(&c.churnConns, "churn-conns", 4, "connections subscribing and unsubscribing meanwhile (subs)")
	flag.Int64Var(&c.connects, "connects", 1000, "connections to open and close (connect)")
	flag.IntVar(&c.parallel, "parallel", 1, "connections being opened at a time (connect)")
	var tlsCA string
	flag.StringVar(&tlsCA, "tls-ca", "", "PEM CA file: use TLS on every connection, trusting this CA")
	flag.Parse()
	if c.url == "" {
		fail("-url is required")
	}
	if tlsCA != "" {
		if err := useTLS(tlsCA); err != nil {
			fail(err.Error())
		}
	}
	for _, s := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail("counts must be positive integers: counts=" + counts)
		}
		c.counts = append(c.counts, n)
	}
	var result interface{}
	var err error
	switch c.mode {
	case "throughput":
		result, err = runThroughput(c)
	case "reqrep":
		result, err = runRequestReply(c)
	case "latency":
		result, err = runLatency(c)
	case "subs":
		result, err = runSubs(c)
	case "soak":
		result, err = runSoak(c)
	case "connect":
		result, err = runConnect(c)
	default:
		fail("unknown mode (throughput, reqrep, latency, subs, soak, connect): mode=" + c.mode)
	}
	if err != nil {
		// A setup error (cannot connect); verification failures are results, not errors.
		fail(err.Error())
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "natsload: "+msg)
	os.Exit(1)
}

func progress(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "natsload: "+format+"\n", args...)
}
