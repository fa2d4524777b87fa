// Command clienttest runs nats.go (Debian's golang-github-nats-io-go-nats-dev) against a NATS
// server and checks what the client sees, one case at a time:
//
//	clienttest -url nats://127.0.0.1:4333 pubsub wildcards ...
//
// It prints "PASS <case>" or "FAIL <case>: <reason>" for each case and exits 1 if any failed.
// Every wait is bounded (waitTimeout). The cases expect nats-server's behaviour, so that the
// program passes against nats-server itself; GoClientTest runs it against ringbus-server.
//
// The reconnect case prints "RESTART <url>" and then waits for the client to reconnect: whoever
// runs the program restarts the server on the same port when it reads that line.
//
// The jetstream-publish case expects a stream on "orders.go.>" (or a wider pattern): GoClientTest
// starts ringbus with "orders.>" durable; against nats-server, create such a stream first.
//
// Every connection uses TLS as the CLIENTTEST_TLS_* variables say (tls.go), so that any case runs
// over TLS; the connect-refused and tls-reload cases are for TLS (TlsClientContractTest).
//
// The slow-consumer-server case expects the server to drop a subscriber that does not read once
// its pending output exceeds a limit well below slowPublishBytes (GoClientTest starts ringbus with
// max_pending 64 KiB and a 3 s write deadline).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

// waitTimeout bounds every wait for a message, a callback or a socket; far above what a loaded
// machine needs, so that it only turns a hang into a failure.
const waitTimeout = 15 * time.Second

// slowPublishBytes is what the slow-consumer-server case publishes while its raw subscriber does
// not read: far above the test server's max_pending plus the socket buffers of a small receiver.
const slowPublishBytes = 8 << 20

var url string

func main() {
	flag.StringVar(&url, "url", "nats://127.0.0.1:4222", "server URL")
	flag.Parse()
	cases := map[string]func() error{
		"pubsub":               pubSub,
		"wildcards":            wildcards,
		"queue-groups":         queueGroups,
		"request-reply":        requestReply,
		"no-responders":        noResponders,
		"headers":              headers,
		"drain":                drain,
		"reconnect":            reconnect,
		"odd-subjects":         oddSubjects,
		"slow-consumer-client": slowConsumerClient,
		"slow-consumer-server": slowConsumerServer,
		"jetstream-publish":    jetStreamPublish,
		"connect-refused":      connectRefused,
		"tls-reload":           tlsReload,
		"content-filter":       contentFilter,
	}
	names := flag.Args()
	if len(names) == 0 {
		for name := range cases {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	if reason := tlsUnsupported(); reason != "" {
		for _, name := range names {
			fmt.Printf("FAIL %s: %s\n", name, reason)
		}
		os.Exit(1)
	}
	failed := 0
	for _, name := range names {
		run, ok := cases[name]
		if !ok {
			fmt.Printf("FAIL %s: no such case\n", name)
			failed++
			continue
		}
		if err := run(); err != nil {
			fmt.Printf("FAIL %s: %v\n", name, err)
			failed++
		} else {
			fmt.Printf("PASS %s\n", name)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// asyncErrors collects the errors the client reports asynchronously (server -ERR, slow consumer).
type asyncErrors chan error

func connect(name string, errs asyncErrors, extra ...nats.Option) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.Name(name), nats.Timeout(waitTimeout), nats.MaxReconnects(0)},
		tlsOptions()...)
	if errs != nil {
		opts = append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			select {
			case errs <- err:
			default:
			}
		}))
	}
	return nats.Connect(url, append(opts, extra...)...)
}

func next(sub *nats.Subscription) (*nats.Msg, error) {
	m, err := sub.NextMsg(waitTimeout)
	if err != nil {
		return nil, fmt.Errorf("no message on %q: %w", sub.Subject, err)
	}
	return m, nil
}

// expectNothing flushes the subscription's connection, so that anything the server was going to
// deliver has arrived, and fails if a message is pending.
func expectNothing(nc *nats.Conn, sub *nats.Subscription) error {
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	if n, _, _ := sub.Pending(); n != 0 {
		m, _ := sub.NextMsg(0)
		return fmt.Errorf("%q got an unexpected message on %q: %q", sub.Subject, m.Subject, m.Data)
	}
	return nil
}

func pubSub() error {
	sub, err := connect("go-sub", nil)
	if err != nil {
		return err
	}
	defer sub.Close()
	pub, err := connect("go-pub", nil)
	if err != nil {
		return err
	}
	defer pub.Close()
	s, err := sub.SubscribeSync("go.pubsub")
	if err != nil {
		return err
	}
	if err := sub.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	for i := 0; i < 100; i++ {
		if err := pub.Publish("go.pubsub", []byte(fmt.Sprintf("m%d", i))); err != nil {
			return err
		}
	}
	big := make([]byte, 512) // binary payload with every byte value, CR and LF included
	for i := range big {
		big[i] = byte(i)
	}
	if err := pub.Publish("go.pubsub", big); err != nil {
		return err
	}
	for i := 0; i < 100; i++ {
		m, err := next(s)
		if err != nil {
			return err
		}
		if string(m.Data) != fmt.Sprintf("m%d", i) {
			return fmt.Errorf("message %d out of order: %q", i, m.Data)
		}
	}
	m, err := next(s)
	if err != nil {
		return err
	}
	if string(m.Data) != string(big) {
		return fmt.Errorf("binary payload changed: %d bytes back", len(m.Data))
	}
	return nil
}

func wildcards() error {
	nc, err := connect("go-wildcards", nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	star, _ := nc.SubscribeSync("go.wild.*.created")
	tail, _ := nc.SubscribeSync("go.wild.>")
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	for _, subject := range []string{"go.wild.eu.created", "go.wild.eu.created.late", "go.wild.us.deleted", "go.other"} {
		if err := nc.Publish(subject, []byte(subject)); err != nil {
			return err
		}
	}
	m, err := next(star)
	if err != nil {
		return err
	}
	if m.Subject != "go.wild.eu.created" {
		return fmt.Errorf("'*' delivered %q", m.Subject)
	}
	for _, want := range []string{"go.wild.eu.created", "go.wild.eu.created.late", "go.wild.us.deleted"} {
		m, err := next(tail)
		if err != nil {
			return err
		}
		if m.Subject != want || string(m.Data) != want {
			return fmt.Errorf("'>' delivered %q (%q), want %q", m.Subject, m.Data, want)
		}
	}
	if err := expectNothing(nc, star); err != nil {
		return err
	}
	return expectNothing(nc, tail)
}

func queueGroups() error {
	const members, messages = 3, 300
	var conns []*nats.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	counts := make(chan int, messages*2)
	for i := 0; i < members; i++ {
		c, err := connect(fmt.Sprintf("go-queue-%d", i), nil)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		member := i
		if _, err := c.QueueSubscribe("go.queue", "workers", func(*nats.Msg) { counts <- member }); err != nil {
			return err
		}
		if err := c.FlushTimeout(waitTimeout); err != nil {
			return err
		}
	}
	plain, err := conns[0].SubscribeSync("go.queue") // not in the group: gets every message
	if err != nil {
		return err
	}
	if err := conns[0].FlushTimeout(waitTimeout); err != nil {
		return err
	}
	pub, err := connect("go-queue-pub", nil)
	if err != nil {
		return err
	}
	defer pub.Close()
	for i := 0; i < messages; i++ {
		if err := pub.Publish("go.queue", []byte("job")); err != nil {
			return err
		}
	}
	perMember := make([]int, members)
	for i := 0; i < messages; i++ {
		select {
		case member := <-counts:
			perMember[member]++
		case <-time.After(waitTimeout):
			return fmt.Errorf("group got %d of %d messages: %v", i, messages, perMember)
		}
	}
	for i := 0; i < messages; i++ {
		if _, err := next(plain); err != nil {
			return fmt.Errorf("plain subscriber, message %d: %w", i, err)
		}
	}
	for _, c := range conns {
		if err := c.FlushTimeout(waitTimeout); err != nil {
			return err
		}
	}
	if len(counts) != 0 {
		return fmt.Errorf("group delivered more than %d messages: %d extra", messages, len(counts))
	}
	for member, n := range perMember {
		if n == 0 {
			return fmt.Errorf("member %d got nothing of %d: %v", member, messages, perMember)
		}
	}
	return nil
}

func requestReply() error {
	responder, err := connect("go-responder", nil)
	if err != nil {
		return err
	}
	defer responder.Close()
	if _, err := responder.Subscribe("go.svc.upper", func(m *nats.Msg) {
		_ = m.Respond([]byte(strings.ToUpper(string(m.Data))))
	}); err != nil {
		return err
	}
	if err := responder.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	requester, err := connect("go-requester", nil)
	if err != nil {
		return err
	}
	defer requester.Close()
	for _, word := range []string{"ringbus", "nats", "go"} {
		reply, err := requester.Request("go.svc.upper", []byte(word), waitTimeout)
		if err != nil {
			return fmt.Errorf("request %q: %w", word, err)
		}
		if string(reply.Data) != strings.ToUpper(word) {
			return fmt.Errorf("reply to %q was %q", word, reply.Data)
		}
	}
	return nil
}

func noResponders() error {
	nc, err := connect("go-no-responders", nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	_, err = nc.Request("go.nobody.home", []byte("?"), waitTimeout)
	if !errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("want ErrNoResponders at once, got %v", err)
	}
	return nil
}

func headers() error {
	nc, err := connect("go-headers", nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	s, err := nc.SubscribeSync("go.headers")
	if err != nil {
		return err
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	out := nats.NewMsg("go.headers")
	out.Header.Set("Trace-Id", "abc-123")
	out.Header.Add("Multi", "one")
	out.Header.Add("Multi", "two")
	out.Data = []byte("with headers")
	if err := nc.PublishMsg(out); err != nil {
		return err
	}
	empty := nats.NewMsg("go.headers") // headers but no payload
	empty.Header.Set("Only", "headers")
	if err := nc.PublishMsg(empty); err != nil {
		return err
	}
	m, err := next(s)
	if err != nil {
		return err
	}
	if m.Header.Get("Trace-Id") != "abc-123" || strings.Join(m.Header.Values("Multi"), ",") != "one,two" ||
		string(m.Data) != "with headers" {
		return fmt.Errorf("got headers %v and payload %q", m.Header, m.Data)
	}
	m, err = next(s)
	if err != nil {
		return err
	}
	if m.Header.Get("Only") != "headers" || len(m.Data) != 0 {
		return fmt.Errorf("headers-only message came back as headers %v and payload %q", m.Header, m.Data)
	}
	return nil
}

func drain() error {
	const messages = 2000
	closed := make(chan struct{})
	sub, err := connect("go-drain", nil, nats.DrainTimeout(waitTimeout),
		nats.ClosedHandler(func(*nats.Conn) { close(closed) }))
	if err != nil {
		return err
	}
	defer sub.Close()
	received := 0
	if _, err := sub.Subscribe("go.drain", func(*nats.Msg) {
		time.Sleep(50 * time.Microsecond) // a handler with work to do: messages are still queued at Drain
		received++
	}); err != nil {
		return err
	}
	if err := sub.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	pub, err := connect("go-drain-pub", nil)
	if err != nil {
		return err
	}
	defer pub.Close()
	for i := 0; i < messages; i++ {
		if err := pub.Publish("go.drain", []byte("x")); err != nil {
			return err
		}
	}
	// A PING on the subscriber's connection, answered after the server has handled the
	// publisher's flush: every message is on its way to the subscriber before Drain's UNSUB.
	if err := pub.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	if err := sub.Drain(); err != nil {
		return err
	}
	select {
	case <-closed:
	case <-time.After(waitTimeout * 2):
		return fmt.Errorf("connection not closed after Drain; %d of %d handled", received, messages)
	}
	if received != messages {
		return fmt.Errorf("drain handled %d of %d messages", received, messages)
	}
	if err := sub.LastError(); err != nil {
		return fmt.Errorf("drain ended with %w", err)
	}
	return nil
}

func reconnect() error {
	reconnected := make(chan struct{}, 1)
	disconnected := make(chan struct{}, 1)
	nc, err := connect("go-reconnect", nil, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond),
		nats.DisconnectErrHandler(func(*nats.Conn, error) {
			select {
			case disconnected <- struct{}{}:
			default:
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			select {
			case reconnected <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		return err
	}
	defer nc.Close()
	s, err := nc.SubscribeSync("go.reconnect")
	if err != nil {
		return err
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	fmt.Printf("RESTART %s\n", nc.ConnectedUrl())
	select {
	case <-disconnected:
	case <-time.After(waitTimeout * 2):
		return errors.New("server did not go away")
	}
	select {
	case <-reconnected:
	case <-time.After(waitTimeout * 2):
		return errors.New("no reconnect within the timeout")
	}
	// The subscription was sent again on reconnect: a message published now reaches it.
	if err := nc.Publish("go.reconnect", []byte("after restart")); err != nil {
		return err
	}
	m, err := next(s)
	if err != nil {
		return fmt.Errorf("subscription not restored: %w", err)
	}
	if string(m.Data) != "after restart" {
		return fmt.Errorf("got %q", m.Data)
	}
	return nil
}

// oddSubjects publishes to subjects a careless application builds from data: an empty token and
// wildcards. nats-server accepts them (no -ERR, connection kept) unless the client is pedantic,
// and routes the wildcard ones like any subject: a '>' subscriber receives "a.*" and "a.>";
// a subject with an empty token matches no subscription, so nobody receives it.
func oddSubjects() error {
	errs := make(asyncErrors, 8)
	nc, err := connect("go-odd", errs)
	if err != nil {
		return err
	}
	defer nc.Close()
	all, err := nc.SubscribeSync(">")
	if err != nil {
		return err
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	odd := []string{"orders..created", "a.*", "a.>"}
	for _, subject := range odd {
		if err := nc.Publish(subject, []byte(subject)); err != nil {
			return fmt.Errorf("publish %q: %w", subject, err)
		}
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return fmt.Errorf("connection lost after odd subjects: %w (last error: %v)", err, nc.LastError())
	}
	select {
	case err := <-errs:
		return fmt.Errorf("server reported %v", err)
	default:
	}
	for _, want := range odd[1:] {
		m, err := next(all)
		if err != nil {
			return err
		}
		if m.Subject != want {
			return fmt.Errorf("'>' got %q, want %q", m.Subject, want)
		}
	}
	if err := expectNothing(nc, all); err != nil {
		return err
	}
	if !nc.IsConnected() {
		return fmt.Errorf("connection status %v", nc.Status())
	}
	return nil
}

// slowConsumerClient: a subscription whose handler stops taking messages overflows its pending
// limit in the client, which reports ErrSlowConsumer; another subscriber gets everything.
func slowConsumerClient() error {
	errs := make(asyncErrors, 64)
	nc, err := connect("go-slow-client", errs)
	if err != nil {
		return err
	}
	defer nc.Close()
	release := make(chan struct{})
	defer close(release)
	stuck, err := nc.Subscribe("go.slow.client", func(*nats.Msg) { <-release })
	if err != nil {
		return err
	}
	if err := stuck.SetPendingLimits(10, 1<<20); err != nil {
		return err
	}
	healthy, err := connect("go-slow-healthy", nil)
	if err != nil {
		return err
	}
	defer healthy.Close()
	hs, err := healthy.SubscribeSync("go.slow.client")
	if err != nil {
		return err
	}
	if err := healthy.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	const messages = 200
	for i := 0; i < messages; i++ {
		if err := nc.Publish("go.slow.client", []byte(fmt.Sprint(i))); err != nil {
			return err
		}
	}
	select {
	case err := <-errs:
		if !errors.Is(err, nats.ErrSlowConsumer) {
			return fmt.Errorf("want ErrSlowConsumer, got %v", err)
		}
	case <-time.After(waitTimeout):
		return errors.New("no slow consumer error")
	}
	for i := 0; i < messages; i++ {
		m, err := next(hs)
		if err != nil {
			return fmt.Errorf("healthy subscriber, message %d: %w", i, err)
		}
		if string(m.Data) != fmt.Sprint(i) {
			return fmt.Errorf("healthy subscriber got %q as message %d", m.Data, i)
		}
	}
	return nil
}

// slowConsumerServer: a subscriber that stops reading its socket is cut off by the server, while
// a healthy subscriber on the same subject gets every message and its connection keeps working.
func slowConsumerServer() error {
	host := strings.TrimPrefix(url, "nats://")
	dialer := net.Dialer{Timeout: waitTimeout, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { // a small window, so that the server's output backs up soon
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	raw, err := dialer.Dial("tcp", host)
	if err != nil {
		return err
	}
	defer raw.Close()
	_ = raw.SetDeadline(time.Now().Add(waitTimeout))
	in := bufio.NewReader(raw)
	if line, err := in.ReadString('\n'); err != nil || !strings.HasPrefix(line, "INFO ") {
		return fmt.Errorf("raw subscriber: want INFO, got %q (%v)", line, err)
	}
	if _, err := raw.Write([]byte("CONNECT {\"verbose\":false}\r\nSUB go.slow.server 1\r\nPING\r\n")); err != nil {
		return err
	}
	if line, err := in.ReadString('\n'); err != nil || line != "PONG\r\n" {
		return fmt.Errorf("raw subscriber: want PONG, got %q (%v)", line, err)
	}
	// From here on the raw subscriber reads nothing until the publishing is over.

	healthy, err := connect("go-slow-server-healthy", nil)
	if err != nil {
		return err
	}
	defer healthy.Close()
	received := make(chan int, 1)
	count := 0
	const size = 1024
	const messages = slowPublishBytes / size
	if _, err := healthy.Subscribe("go.slow.server", func(*nats.Msg) {
		count++
		if count == messages {
			received <- count
		}
	}); err != nil {
		return err
	}
	if err := healthy.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	pub, err := connect("go-slow-server-pub", nil)
	if err != nil {
		return err
	}
	defer pub.Close()
	payload := make([]byte, size)
	for i := 0; i < messages; i++ {
		if err := pub.Publish("go.slow.server", payload); err != nil {
			return fmt.Errorf("publisher, message %d: %w", i, err)
		}
	}
	if err := pub.FlushTimeout(waitTimeout * 2); err != nil {
		return fmt.Errorf("publisher flush: %w", err)
	}
	select {
	case <-received:
	case <-time.After(waitTimeout * 2):
		return fmt.Errorf("healthy subscriber got %d of %d", count, messages)
	}
	if err := healthy.FlushTimeout(waitTimeout); err != nil {
		return fmt.Errorf("healthy connection after the slow consumer: %w", err)
	}
	// The slow one was closed: reading on, it reaches the end of the stream well before all the
	// published bytes (a dropped connection gets what was already in its socket buffers only).
	_ = raw.SetDeadline(time.Now().Add(waitTimeout))
	n, err := io.Copy(io.Discard, in)
	if err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return fmt.Errorf("raw subscriber still open after %d bytes read", n)
		}
		// a reset also means closed
	}
	if n >= slowPublishBytes {
		return fmt.Errorf("raw subscriber got all %d bytes: not treated as slow", n)
	}
	return nil
}

// jetStreamPublish publishes with nats.go's JetStream context, unchanged: every publish is
// acknowledged with the stream's name and the next sequence, a repeated message id is a
// duplicate of the first, and an asynchronous publish is acknowledged too.
func jetStreamPublish() error {
	nc, err := connect("go-jetstream", nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		return err
	}
	first, err := js.Publish("orders.go.1", []byte("order 1"))
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if first.Stream == "" || first.Sequence == 0 || first.Duplicate {
		return fmt.Errorf("first ack %+v", *first)
	}
	for i := uint64(2); i <= 3; i++ {
		ack, err := js.Publish(fmt.Sprintf("orders.go.%d", i), []byte(fmt.Sprintf("order %d", i)))
		if err != nil {
			return fmt.Errorf("publish %d: %w", i, err)
		}
		if ack.Stream != first.Stream || ack.Sequence != first.Sequence+i-1 {
			return fmt.Errorf("ack %d is %+v after %+v", i, *ack, *first)
		}
	}
	id, err := js.Publish("orders.go.id", []byte("once"), nats.MsgId("go-order-1"))
	if err != nil {
		return fmt.Errorf("publish with a message id: %w", err)
	}
	again, err := js.Publish("orders.go.id", []byte("once"), nats.MsgId("go-order-1"))
	if err != nil {
		return fmt.Errorf("publish the message id again: %w", err)
	}
	if id.Duplicate || !again.Duplicate || again.Sequence != id.Sequence {
		return fmt.Errorf("message id: first %+v, again %+v", *id, *again)
	}
	future, err := js.PublishAsync("orders.go.async", []byte("async"))
	if err != nil {
		return fmt.Errorf("publish async: %w", err)
	}
	select {
	case ack := <-future.Ok():
		if ack.Stream != first.Stream || ack.Sequence != id.Sequence+1 {
			return fmt.Errorf("async ack %+v after %+v", *ack, *id)
		}
	case err := <-future.Err():
		return fmt.Errorf("async publish: %w", err)
	case <-time.After(waitTimeout):
		return errors.New("no async ack")
	}
	return nc.FlushTimeout(waitTimeout)
}
