package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// soakSizes are the publishers' payload sizes: a mix of small and large messages.
var soakSizes = []int{16, 16, 256, 1024}

type soakFast struct {
	Received int64   `json:"received"`
	Expected int64   `json:"expected"`
	Failure  *string `json:"failure"`
}

type soakResult struct {
	Mode            string     `json:"mode"`
	Seconds         float64    `json:"seconds"`
	RatePerPub      int        `json:"ratePerPublisher"`
	PublisherSizes  []int      `json:"publisherSizes"`
	Published       int64      `json:"published"`
	Fast            []soakFast `json:"fast"`
	FastGotAll      bool       `json:"fastGotEverything"`
	SlowClientGot   int64      `json:"slowClientHandled"`
	SlowClientDrop  int64      `json:"slowClientDropped"`
	SlowSocketBytes int64      `json:"slowSocketBytes"`
	SlowSocketCut   bool       `json:"slowSocketCutByServer"`
	StuckSocketCut  bool       `json:"stuckSocketCutByServer"`
	ChurnConns      int64      `json:"churnConnections"`
	ChurnFailures   int64      `json:"churnFailures"`
	Problems        []string   `json:"problems"`
}

// rawSubscriber opens a plain TCP connection that subscribes to subject; what it then reads (or
// not) is up to the caller. It is what a server sees from a client whose application stalls.
func rawSubscriber(url, subject string) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "nats://"), 10*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bufio.NewReader(conn).ReadString('\n'); err != nil { // INFO
		conn.Close()
		return nil, err
	}
	_ = conn.SetReadDeadline(time.Time{})
	_, err = fmt.Fprintf(conn, "CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"raw\"}\r\nSUB %s 1\r\nPING\r\n", subject)
	return conn, err
}

// closedByServer drains what is buffered and reports whether the server closed the connection.
func closedByServer(conn net.Conn) bool {
	buf := make([]byte, 64*1024)
	limit := time.Now().Add(2 * time.Second)
	for time.Now().Before(limit) {
		_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := conn.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return false
			}
			return true // EOF or reset
		}
	}
	return false
}

func runSoak(c config) (interface{}, error) {
	res := &soakResult{Mode: "soak", RatePerPub: c.rate, PublisherSizes: soakSizes}
	subject := c.subject + ".data"
	w := &watch{}
	slowWatch := &watch{} // the slow client's own drops are expected, not failures
	var conns []*nats.Conn
	defer func() {
		w.quiet.Store(true)
		slowWatch.quiet.Store(true)
		for _, nc := range conns {
			nc.Close()
		}
	}()
	// Fast subscribers: every message of every publisher, in order.
	type fast struct {
		next     []uint64
		received atomic.Int64
		problem  atomic.Value
	}
	fasts := make([]*fast, 2)
	for i := range fasts {
		f := &fast{next: make([]uint64, len(soakSizes))}
		fasts[i] = f
		nc, err := connect(c.url, fmt.Sprintf("fast-%d", i), w)
		if err != nil {
			return nil, err
		}
		conns = append(conns, nc)
		sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
			p := int(binary.BigEndian.Uint32(m.Data[0:4]))
			seq := binary.BigEndian.Uint64(m.Data[4:12])
			if p >= len(f.next) || seq != f.next[p] {
				if f.problem.Load() == nil {
					f.problem.Store(fmt.Sprintf("publisher %d: got %d, expected %d", p, seq, f.next[p%len(f.next)]))
				}
			}
			if p < len(f.next) {
				f.next[p] = seq + 1
			}
			f.received.Add(1)
		})
		if err != nil {
			return nil, err
		}
		_ = sub.SetPendingLimits(-1, -1)
	}
	// A slow nats.go subscriber: its handler takes 1 ms; nats.go buffers and drops client-side.
	slowConn, err := connect(c.url, "slow-client", slowWatch)
	if err != nil {
		return nil, err
	}
	conns = append(conns, slowConn)
	var slowHandled atomic.Int64
	slowSub, err := slowConn.Subscribe(subject, func(m *nats.Msg) {
		time.Sleep(time.Millisecond)
		slowHandled.Add(1)
	})
	if err != nil {
		return nil, err
	}
	// A slow socket (reads 4 KiB every 10 ms) and a stuck one (never reads): what the server sees.
	slowSocket, err := rawSubscriber(c.url, subject)
	if err != nil {
		return nil, err
	}
	defer slowSocket.Close()
	stuckSocket, err := rawSubscriber(c.url, subject)
	if err != nil {
		return nil, err
	}
	defer stuckSocket.Close()
	for _, nc := range conns {
		if err := nc.Flush(); err != nil {
			return nil, err
		}
	}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	var slowBytes atomic.Int64
	var slowCut atomic.Bool
	bg.Add(1)
	go func() {
		defer bg.Done()
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			_ = slowSocket.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			n, err := slowSocket.Read(buf)
			slowBytes.Add(int64(n))
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					continue
				}
				slowCut.Store(err == io.EOF || !strings.Contains(err.Error(), "use of closed"))
				return
			}
		}
	}()
	// Connection churn: every 50 ms a client connects, subscribes, publishes a little, leaves.
	var churned, churnFailed atomic.Int64
	bg.Add(1)
	go func() {
		defer bg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			nc, err := nats.Connect(c.url, append([]nats.Option{nats.Name(fmt.Sprintf("churn-%d", i)),
				nats.NoReconnect(), nats.Timeout(5 * time.Second)}, tlsOptions...)...)
			if err != nil {
				churnFailed.Add(1)
				continue
			}
			s, _ := nc.SubscribeSync(fmt.Sprintf("%s.churn.%d", c.subject, i))
			for k := 0; k < 10; k++ {
				_ = nc.Publish(fmt.Sprintf("%s.churn.%d", c.subject, i), []byte("churn"))
			}
			if _, err := s.NextMsg(5 * time.Second); err != nil {
				churnFailed.Add(1)
			}
			nc.Close()
			churned.Add(1)
		}
	}()
	// Publishers, each paced at -rate, for -duration.
	sent := make([]int64, len(soakSizes))
	var pubs sync.WaitGroup
	start := time.Now()
	for p, size := range soakSizes {
		nc, err := connect(c.url, fmt.Sprintf("pub-%d", p), w)
		if err != nil {
			close(stop)
			return nil, err
		}
		conns = append(conns, nc)
		pubs.Add(1)
		go func(p, size int, nc *nats.Conn) {
			defer pubs.Done()
			payload := make([]byte, size)
			var n int64
			for time.Since(start) < c.duration {
				due := int64(time.Since(start).Seconds() * float64(c.rate))
				for ; n < due; n++ {
					stamp(payload, p, uint64(n))
					if err := nc.Publish(subject, payload); err != nil {
						w.add(fmt.Sprintf("publisher %d: %v", p, err))
						sent[p] = n
						return
					}
				}
				time.Sleep(time.Millisecond)
			}
			if err := nc.FlushTimeout(30 * time.Second); err != nil {
				w.add(fmt.Sprintf("publisher %d flush: %v", p, err))
			}
			sent[p] = n
		}(p, size, nc)
	}
	pubs.Wait()
	res.Seconds = time.Since(start).Seconds()
	for _, n := range sent {
		res.Published += n
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, f := range fasts {
		for f.received.Load() < res.Published && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(stop)
	bg.Wait()
	res.FastGotAll = true
	for _, f := range fasts {
		r := soakFast{Received: f.received.Load(), Expected: res.Published}
		if p := f.problem.Load(); p != nil {
			s := p.(string)
			r.Failure = &s
		} else if r.Received != r.Expected {
			s := fmt.Sprintf("received %d of %d", r.Received, r.Expected)
			r.Failure = &s
		}
		if r.Failure != nil {
			res.FastGotAll = false
		}
		res.Fast = append(res.Fast, r)
	}
	res.SlowClientGot = slowHandled.Load()
	dropped, _ := slowSub.Dropped()
	res.SlowClientDrop = int64(dropped)
	res.SlowSocketBytes = slowBytes.Load()
	res.SlowSocketCut = slowCut.Load()
	res.StuckSocketCut = closedByServer(stuckSocket)
	res.ChurnConns = churned.Load()
	res.ChurnFailures = churnFailed.Load()
	w.mu.Lock()
	res.Problems = append([]string{}, w.problems...)
	w.mu.Unlock()
	progress("soak %.0f s: %d published, fast subscribers got everything: %v", res.Seconds, res.Published, res.FastGotAll)
	return res, nil
}
