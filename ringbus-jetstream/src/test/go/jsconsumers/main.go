// Command jsconsumers uses nats.go's JetStream consumers against a server: a durable pull
// subscription (Fetch, Ack, AckSync), a durable push subscription and an ordered consumer, printing
// one line per message ("pull m1 1", "push m1 go.x", "ordered m1") and "done" at the end; any
// failure exits 1 with its reason.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
)

func fail(what string, err error) {
	fmt.Printf("fail %s: %v\n", what, err)
	os.Exit(1)
}

func main() {
	nc, err := nats.Connect(os.Args[1])
	if err != nil {
		fail("connect", err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		fail("jetstream", err)
	}
	if _, err := js.AddStream(&nats.StreamConfig{Name: "GO", Subjects: []string{"go.>"}}); err != nil {
		fail("add stream", err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := js.Publish("go.x", []byte(fmt.Sprintf("m%d", i))); err != nil {
			fail("publish", err)
		}
	}
	sub, err := js.PullSubscribe("go.>", "gpull", nats.AckWait(time.Second))
	if err != nil {
		fail("pull subscribe", err)
	}
	got := 0
	for got < 5 {
		msgs, err := sub.Fetch(3, nats.MaxWait(3*time.Second))
		if err != nil {
			fail("fetch", err)
		}
		for _, m := range msgs {
			meta, err := m.Metadata()
			if err != nil {
				fail("metadata", err)
			}
			fmt.Printf("pull %s %d\n", string(m.Data), meta.Sequence.Stream)
			if got%2 == 0 {
				err = m.AckSync()
			} else {
				err = m.Ack()
			}
			if err != nil {
				fail("ack", err)
			}
			got++
		}
	}
	info, err := js.ConsumerInfo("GO", "gpull")
	if err != nil {
		fail("consumer info", err)
	}
	fmt.Printf("info delivered %d pending %d\n", info.Delivered.Stream, info.NumPending)
	push, err := js.SubscribeSync("go.>", nats.Durable("gpush"), nats.AckExplicit())
	if err != nil {
		fail("push subscribe", err)
	}
	for i := 0; i < 5; i++ {
		m, err := push.NextMsg(3 * time.Second)
		if err != nil {
			fail("next", err)
		}
		fmt.Printf("push %s %s\n", string(m.Data), m.Subject)
		if err := m.Ack(); err != nil {
			fail("push ack", err)
		}
	}
	ordered, err := js.SubscribeSync("go.>", nats.OrderedConsumer())
	if err != nil {
		fail("ordered subscribe", err)
	}
	for i := 0; i < 5; i++ {
		m, err := ordered.NextMsg(3 * time.Second)
		if err != nil {
			fail("ordered next", err)
		}
		fmt.Printf("ordered %s\n", string(m.Data))
	}
	fmt.Println("done")
}
