// Command powercutpub is one nats.go publisher of a power-cut run (GoCutPublisher drives it, one
// process per publisher and server life): JetStream PublishMsgAsync to orders.p<publisher>, the id
// "<publisher>-<number>" as Nats-Msg-Id and at the start of the payload, at most -window
// acknowledgements outstanding. It first sends again, in order, the numbers given by -resend (ids
// whose acknowledgement never came), then new numbers from -next on, until its connection is gone
// (the server killed: no reconnect) or its stdin ends.
//
// It reports on stdout, one line each, written whole and unbuffered as it happens:
//
//	SENT <number>               a new number, before it is published
//	ACK <number> <seq> <dup>    a PubAck: stream sequence, 1 if a duplicate else 0
//	END <reason>                it stops publishing (then exits 0)
//
// A bad argument prints "usage: ..." on stderr and exits 2.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// out serializes the report lines: an ACK of a number comes after its SENT line.
var out struct {
	sync.Mutex
	w io.Writer
}

func report(format string, args ...interface{}) {
	out.Lock()
	fmt.Fprintf(out.w, format+"\n", args...)
	out.Unlock()
}

func main() {
	url := flag.String("url", "nats://127.0.0.1:4222", "server URL")
	publisher := flag.Int("publisher", 0, "publisher number (ids <publisher>-<number>)")
	window := flag.Int("window", 150, "acknowledgements outstanding at most")
	payload := flag.Int("payload", 200, "payload bytes (at least the id and a space)")
	next := flag.Int64("next", 0, "the first new number")
	resend := flag.String("resend", "", "numbers to send again first, comma separated, in order")
	flag.Parse()
	again, err := numbers(*resend)
	if err != nil || *window < 1 || *publisher < 0 || *next < 0 {
		fmt.Fprintf(os.Stderr, "usage: powercutpub -url URL -publisher P -window W -payload B -next N "+
			"[-resend n,n,...]: bad value in %q (window=%d publisher=%d next=%d)\n", os.Args[1:], *window,
			*publisher, *next)
		os.Exit(2)
	}
	out.w = os.Stdout
	report("END %s", run(*url, *publisher, *window, *payload, *next, again))
}

func numbers(list string) ([]int64, error) {
	var out []int64
	if list == "" {
		return out, nil
	}
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("not a number: %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// run publishes until the connection is gone or stdin ends; returns why it stopped.
func run(url string, publisher, window, payloadBytes int, next int64, again []int64) string {
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	go func() { // the driver closes stdin to stop it
		io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	nc, err := nats.Connect(url, nats.NoReconnect(), nats.Timeout(10*time.Second),
		nats.ClosedHandler(func(*nats.Conn) { stop() }))
	if err != nil {
		return "connect: " + err.Error()
	}
	defer nc.Close()
	// nats.go's own bound is above ours: the window below is what limits.
	js, err := nc.JetStream(nats.PublishAsyncMaxPending(2 * window))
	if err != nil {
		return "jetstream: " + err.Error()
	}
	slots := make(chan struct{}, window)
	subject := "orders.p" + strconv.Itoa(publisher)
	for i := 0; ; i++ {
		select {
		case <-done:
			return "stopped or disconnected"
		case slots <- struct{}{}:
		}
		var number int64
		if i < len(again) {
			number = again[i]
		} else {
			number = next
			next++
			report("SENT %d", number)
		}
		id := strconv.Itoa(publisher) + "-" + strconv.FormatInt(number, 10)
		future, err := js.PublishMsgAsync(&nats.Msg{Subject: subject, Data: body(id, payloadBytes)}, nats.MsgId(id))
		if err != nil {
			<-slots
			if nc.IsClosed() {
				return "publish: " + err.Error()
			}
			continue // stalled: the number stays unacknowledged and is sent again after a restart
		}
		go awaitAck(future, number, done, slots)
	}
}

// awaitAck reports the acknowledgement of number as soon as it arrives, then frees its slot.
func awaitAck(future nats.PubAckFuture, number int64, done <-chan struct{}, slots <-chan struct{}) {
	defer func() { <-slots }()
	select {
	case ack := <-future.Ok():
		dup := 0
		if ack.Duplicate {
			dup = 1
		}
		report("ACK %d %d %d", number, ack.Sequence, dup)
	case <-future.Err():
	case <-done:
	}
}

func body(id string, size int) []byte {
	var b strings.Builder
	b.WriteString(id)
	b.WriteByte(' ')
	for b.Len() < size {
		b.WriteByte('x')
	}
	return []byte(b.String())
}
