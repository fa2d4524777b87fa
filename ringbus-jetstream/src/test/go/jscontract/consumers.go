package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
)

// addPullConsumer creates a durable pull consumer with explicit acks and binds a pull subscription to it.
func addPullConsumer(e *env, stream, durable string, ackWait time.Duration) (*nats.Subscription, error) {
	cfg := &nats.ConsumerConfig{Durable: durable, AckPolicy: nats.AckExplicitPolicy, AckWait: ackWait}
	if _, err := e.js.AddConsumer(stream, cfg); err != nil {
		return nil, step(err, "add consumer "+durable)
	}
	sub, err := e.js.PullSubscribe("", durable, nats.Bind(stream, durable))
	return sub, step(err, "pull subscribe "+durable)
}

// fetchN fetches until n messages have come, each Fetch bounded by apiWait.
func fetchN(sub *nats.Subscription, n int) ([]*nats.Msg, error) {
	var got []*nats.Msg
	for tries := 0; len(got) < n && tries < 3; tries++ {
		msgs, err := sub.Fetch(n-len(got), nats.MaxWait(apiWait))
		if err != nil && err != nats.ErrTimeout {
			return got, step(err, "fetch")
		}
		got = append(got, msgs...)
	}
	return got, check(len(got) == n, "fetched %d of %d messages", len(got), n)
}

// seen describes a message as "<data>@<stream sequence>/<deliveries>".
func seen(m *nats.Msg) string {
	meta, err := m.Metadata()
	if err != nil {
		return fmt.Sprintf("%s@%v", m.Data, err)
	}
	return fmt.Sprintf("%s@%d/%d", m.Data, meta.Sequence.Stream, meta.NumDelivered)
}

func pullFetchAck(e *env) error {
	err := firstError(addStream(e, "PULL", "pull.>"), publishAll(e, "pull.x", "m1", "m2", "m3", "m4", "m5"))
	if err != nil {
		return err
	}
	sub, err := addPullConsumer(e, "PULL", "puller", 0)
	if err != nil {
		return err
	}
	var got []string
	for _, batch := range []int{3, 2} {
		msgs, err := fetchN(sub, batch)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			got = append(got, seen(m))
			if err := m.AckSync(nats.AckWait(apiWait)); err != nil {
				return step(err, "ack "+seen(m))
			}
		}
	}
	ci, err := e.js.ConsumerInfo("PULL", "puller")
	if err != nil {
		return step(err, "consumer info")
	}
	return firstError(same(got, []string{"m1@1/1", "m2@2/1", "m3@3/1", "m4@4/1", "m5@5/1"}, "fetched"),
		same([]interface{}{ci.NumAckPending, ci.NumPending}, []interface{}{0, 0}, "after acks"))
}

func pullNakRedelivery(e *env) error {
	err := firstError(addStream(e, "NAK", "nak.>"), publishAll(e, "nak.x", "n1", "n2"))
	if err != nil {
		return err
	}
	sub, err := addPullConsumer(e, "NAK", "naker", 30*time.Second)
	if err != nil {
		return err
	}
	first, err := fetchN(sub, 1)
	if err != nil {
		return err
	}
	if err := firstError(same(seen(first[0]), "n1@1/1", "first delivery"), step(first[0].Nak(), "nak")); err != nil {
		return err
	}
	// n1 again and n2, in either order: the server may serve the fetch before it has the nak
	again, err := fetchN(sub, 2)
	if err != nil {
		return err
	}
	var got []string
	for _, m := range again {
		got = append(got, seen(m))
		if err := m.AckSync(nats.AckWait(apiWait)); err != nil {
			return step(err, "ack "+seen(m))
		}
	}
	sort.Strings(got)
	ci, err := e.js.ConsumerInfo("NAK", "naker")
	if err != nil {
		return step(err, "consumer info")
	}
	return firstError(same(got, []string{"n1@1/2", "n2@2/1"}, "after nak"),
		same([]interface{}{ci.NumRedelivered, ci.AckFloor.Stream}, []interface{}{0, 2}, "consumer after acks"))
}

func pushConsumer(e *env) error {
	if err := firstError(addStream(e, "PUSH", "push.>"), publishAll(e, "push.x", "p1", "p2", "p3")); err != nil {
		return err
	}
	deliver := nats.NewInbox()
	sub, err := e.js.SubscribeSync("push.>", nats.Durable("pusher"), nats.DeliverSubject(deliver), nats.AckExplicit())
	if err != nil {
		return step(err, "subscribe")
	}
	defer sub.Unsubscribe()
	var got []string
	for i := 0; i < 3; i++ {
		m, err := sub.NextMsg(apiWait)
		if err != nil {
			return step(err, fmt.Sprintf("push message %d", i+1))
		}
		got = append(got, fmt.Sprintf("%s %s", m.Data, m.Subject))
		if err := m.Ack(); err != nil {
			return step(err, "ack")
		}
	}
	if err := e.nc.Flush(); err != nil {
		return step(err, "flush")
	}
	ci, err := e.js.ConsumerInfo("PUSH", "pusher")
	if err != nil {
		return step(err, "consumer info")
	}
	return firstError(same(got, []string{"p1 push.x", "p2 push.x", "p3 push.x"}, "pushed"),
		same([]interface{}{ci.Config.DeliverSubject, ci.Delivered.Stream}, []interface{}{deliver, 3},
			"push consumer info"))
}

// orderedRead reads n messages through an ordered push consumer on subject, as "<data>@<stream sequence>".
func orderedRead(e *env, subject string, n int) ([]string, error) {
	sub, err := e.js.SubscribeSync(subject, nats.OrderedConsumer())
	if err != nil {
		return nil, step(err, "ordered subscribe "+subject)
	}
	defer sub.Unsubscribe()
	var got []string
	for len(got) < n {
		m, err := sub.NextMsg(apiWait)
		if err != nil {
			return got, step(err, fmt.Sprintf("ordered message %d on %s", len(got)+1, subject))
		}
		meta, err := m.Metadata()
		if err != nil {
			return got, step(err, "metadata")
		}
		got = append(got, fmt.Sprintf("%s@%d", m.Data, meta.Sequence.Stream))
	}
	return got, nil
}

func orderedConsumer(e *env) error {
	err := firstError(addStream(e, "ORDERED", "ordered.>"), publishAll(e, "ordered.a", "o1", "o2"),
		publishAll(e, "ordered.b", "o3"))
	if err != nil {
		return err
	}
	filtered, err := orderedRead(e, "ordered.a", 2)
	if err != nil {
		return err
	}
	all, err := orderedRead(e, "ordered.>", 3)
	if err != nil {
		return err
	}
	return firstError(same(filtered, []string{"o1@1", "o2@2"}, "ordered consumer on ordered.a"),
		same(all, []string{"o1@1", "o2@2", "o3@3"}, "ordered consumer on ordered.>"))
}

func durableInfoAfterAcks(e *env) error {
	err := firstError(addStream(e, "FLOOR", "floor.>"), publishAll(e, "floor.x", "f1", "f2", "f3", "f4", "f5"))
	if err != nil {
		return err
	}
	sub, err := addPullConsumer(e, "FLOOR", "floor", 0)
	if err != nil {
		return err
	}
	msgs, err := fetchN(sub, 3)
	if err != nil {
		return err
	}
	if err := firstError(step(msgs[0].AckSync(nats.AckWait(apiWait)), "ack 1"),
		step(msgs[1].AckSync(nats.AckWait(apiWait)), "ack 2")); err != nil {
		return err
	}
	ci, err := e.js.ConsumerInfo("FLOOR", "floor")
	if err != nil {
		return step(err, "consumer info")
	}
	var names []string
	for name := range e.js.ConsumerNames("FLOOR") {
		names = append(names, name)
	}
	return firstError(same([]interface{}{ci.Name, ci.Config.Durable, ci.Delivered.Stream, ci.AckFloor.Stream,
		ci.AckFloor.Consumer, ci.NumAckPending, ci.NumPending}, []interface{}{"floor", "floor", 3, 2, 2, 1, 2},
		"consumer info"), same(names, []string{"floor"}, "consumer names"))
}
