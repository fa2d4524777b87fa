// The ringbus quick start with nats.go: connect, publish and subscribe, request and reply, and a
// publish that ringbus acknowledges once the message is stored (docs/quickstart/go.md).
package main

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	url := os.Getenv("NATS_URL")
	if url == "" {
		url = nats.DefaultURL // nats://127.0.0.1:4222
	}
	nc, err := nats.Connect(url)
	check(err)
	defer nc.Close()
	fmt.Println("connected to", url)

	// Subscribe, then publish: the subscription receives the message.
	sub, err := nc.SubscribeSync("greet.*")
	check(err)
	check(nc.Publish("greet.joe", []byte("hello")))
	msg, err := sub.NextMsg(2 * time.Second)
	check(err)
	fmt.Printf("received %s: %s\n", msg.Subject, msg.Data)

	// Request and reply: a responder on "ping" answers every request.
	_, err = nc.Subscribe("ping", func(request *nats.Msg) {
		request.Respond([]byte("pong"))
	})
	check(err)
	reply, err := nc.Request("ping", nil, 2*time.Second)
	check(err)
	fmt.Printf("reply %s\n", reply.Data)

	// Durable publish: orders.> is stored (ringbus.properties), and JetStream's Publish returns once
	// the message is on disk, with the stream and the message's sequence in it.
	js, err := nc.JetStream()
	check(err)
	ack, err := js.Publish("orders.new", []byte("order from go"))
	check(err)
	fmt.Printf("stored in stream %s seq %d\n", ack.Stream, ack.Sequence)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
