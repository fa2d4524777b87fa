package main

import (
	"errors"
	"fmt"
	"sort"

	"github.com/nats-io/nats.go"
)

// addStream creates a stream of one subject.
func addStream(e *env, name, subject string) error {
	_, err := e.js.AddStream(&nats.StreamConfig{Name: name, Subjects: []string{subject}})
	return step(err, "add stream "+name)
}

// publishAll publishes each body to subject and waits for each PubAck.
func publishAll(e *env, subject string, bodies ...string) error {
	for _, body := range bodies {
		if _, err := e.js.Publish(subject, []byte(body)); err != nil {
			return fmt.Errorf("publish %s to %s: %w", body, subject, err)
		}
	}
	return nil
}

func accountInfo(e *env) error {
	before, err := e.js.AccountInfo()
	if err != nil {
		return step(err, "account info")
	}
	if err := addStream(e, "ACCT", "acct.>"); err != nil {
		return err
	}
	after, err := e.js.AccountInfo()
	if err != nil {
		return step(err, "account info after add")
	}
	return firstError(same(after.Streams, before.Streams+1, "streams after add"),
		check(after.API.Total > before.API.Total, "api total did not grow: %d then %d", before.API.Total,
			after.API.Total))
}

func streamAdd(e *env) error {
	si, err := e.js.AddStream(&nats.StreamConfig{Name: "CRUD", Subjects: []string{"crud.>"}, MaxMsgs: 100})
	if err != nil {
		return step(err, "add")
	}
	return same([]interface{}{si.Config.Name, si.Config.Subjects, si.Config.MaxMsgs, si.State.Msgs},
		[]interface{}{"CRUD", []string{"crud.>"}, 100, 0}, "created stream")
}

func streamInfo(e *env) error {
	if err := firstError(addStream(e, "INFO", "info.>"), publishAll(e, "info.a", "one", "two")); err != nil {
		return err
	}
	si, err := e.js.StreamInfo("INFO")
	if err != nil {
		return step(err, "info")
	}
	_, missing := e.js.StreamInfo("NOPE")
	return firstError(same([]interface{}{si.Config.Name, si.State.Msgs, si.State.FirstSeq, si.State.LastSeq},
		[]interface{}{"INFO", 2, 1, 2}, "info"),
		check(missing == nats.ErrStreamNotFound, "info of a missing stream: %v", missing))
}

func streamUpdate(e *env) error {
	if err := firstError(addStream(e, "UPD", "upd.>"), publishAll(e, "upd.a", "one", "two")); err != nil {
		return err
	}
	si, err := e.js.UpdateStream(&nats.StreamConfig{Name: "UPD", Subjects: []string{"upd.>"}, MaxMsgs: 50})
	if err != nil {
		return step(err, "update")
	}
	again, err := e.js.StreamInfo("UPD")
	if err != nil {
		return step(err, "info after update")
	}
	return firstError(same([]interface{}{si.Config.Subjects, si.Config.MaxMsgs, si.State.Msgs},
		[]interface{}{[]string{"upd.>"}, 50, 2}, "updated"), same(again.Config.MaxMsgs, 50, "max_msgs read back"))
}

func streamMultipleSubjects(e *env) error {
	_, err := e.js.AddStream(&nats.StreamConfig{Name: "MULTI", Subjects: []string{"multi.a", "multi.b.>"}})
	if err = firstError(step(err, "add"), publishAll(e, "multi.a", "a"), publishAll(e, "multi.b.x", "b")); err != nil {
		return err
	}
	_, err = e.js.UpdateStream(&nats.StreamConfig{Name: "MULTI", Subjects: []string{"multi.a", "multi.b.>", "multi.c"}})
	if err = firstError(step(err, "update"), publishAll(e, "multi.c", "c")); err != nil {
		return err
	}
	si, err := e.js.StreamInfo("MULTI")
	if err != nil {
		return step(err, "info")
	}
	return same([]interface{}{len(si.Config.Subjects), si.State.Msgs}, []interface{}{3, 3}, "subjects and messages")
}

func streamList(e *env) error {
	if err := firstError(addStream(e, "LISTED", "listed.>"), addStream(e, "LISTED2", "listed2.>")); err != nil {
		return err
	}
	var names, byName []string
	for si := range e.js.Streams() {
		names = append(names, si.Config.Name)
	}
	for name := range e.js.StreamNames() {
		byName = append(byName, name)
	}
	sort.Strings(names)
	sort.Strings(byName)
	found, err := e.js.StreamNameBySubject("listed.x")
	return firstError(check(contains(names, "LISTED") && contains(names, "LISTED2"), "list: %v", names),
		same(byName, names, "names"), step(err, "stream by subject"), same(found, "LISTED", "stream by subject"))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func streamDelete(e *env) error {
	if err := addStream(e, "DOOMED", "doomed.>"); err != nil {
		return err
	}
	if err := e.js.DeleteStream("DOOMED"); err != nil {
		return step(err, "delete")
	}
	_, info := e.js.StreamInfo("DOOMED")
	again := e.js.DeleteStream("DOOMED")
	return firstError(check(info == nats.ErrStreamNotFound, "info after delete: %v", info),
		check(again == nats.ErrStreamNotFound, "delete again: %v", again))
}

func publishPubAck(e *env) error {
	if err := addStream(e, "PUB", "pub.>"); err != nil {
		return err
	}
	a, err := e.js.Publish("pub.a", []byte("1"))
	if err != nil {
		return step(err, "publish 1")
	}
	b, err := e.js.Publish("pub.b", []byte("2"))
	if err != nil {
		return step(err, "publish 2")
	}
	_, none := e.js.Publish("nostream.here", []byte("x"))
	return firstError(same([]interface{}{a.Stream, a.Sequence, a.Duplicate, b.Sequence},
		[]interface{}{"PUB", 1, false, 2}, "pub acks"),
		check(errors.Is(none, nats.ErrNoStreamResponse), "publish without a stream: %v", none))
}

func publishMsgIDDuplicate(e *env) error {
	if err := addStream(e, "DEDUP", "dedup.>"); err != nil {
		return err
	}
	var acks []*nats.PubAck
	for _, p := range [][2]string{{"x", "id-1"}, {"x", "id-1"}, {"y", "id-2"}} {
		ack, err := e.js.Publish("dedup.a", []byte(p[0]), nats.MsgId(p[1]))
		if err != nil {
			return step(err, "publish "+p[1])
		}
		acks = append(acks, ack)
	}
	si, err := e.js.StreamInfo("DEDUP")
	if err != nil {
		return step(err, "info")
	}
	return firstError(same([]interface{}{acks[0].Sequence, acks[0].Duplicate, acks[1].Sequence, acks[1].Duplicate,
		acks[2].Sequence, acks[2].Duplicate}, []interface{}{1, false, 1, true, 2, false}, "acks"),
		same(si.State.Msgs, 2, "messages stored"))
}

func getMsgBySeq(e *env) error {
	if err := addStream(e, "GET", "get.>"); err != nil {
		return err
	}
	m := nats.NewMsg("get.a")
	m.Header.Set("X-Case", "get")
	m.Data = []byte("first")
	_, err := e.js.PublishMsg(m)
	if err = firstError(step(err, "publish"), publishAll(e, "get.b", "second")); err != nil {
		return err
	}
	got, err := e.js.GetMsg("GET", 1)
	if err != nil {
		return step(err, "get 1")
	}
	_, missing := e.js.GetMsg("GET", 9)
	return firstError(same([]interface{}{got.Subject, got.Sequence, string(got.Data), got.Header.Get("X-Case")},
		[]interface{}{"get.a", 1, "first", "get"}, "message 1"),
		check(missing == nats.ErrMsgNotFound, "get of a missing sequence: %v", missing))
}

func getLastMsgBySubject(e *env) error {
	err := firstError(addStream(e, "LAST", "last.>"), publishAll(e, "last.a", "a1"), publishAll(e, "last.b", "b1"),
		publishAll(e, "last.a", "a2"))
	if err != nil {
		return err
	}
	m, err := e.js.GetLastMsg("LAST", "last.a")
	if err != nil {
		return step(err, "get last")
	}
	_, missing := e.js.GetLastMsg("LAST", "last.none")
	return firstError(same([]interface{}{m.Subject, m.Sequence, string(m.Data)}, []interface{}{"last.a", 3, "a2"},
		"last of last.a"), check(missing == nats.ErrMsgNotFound, "last of a subject without messages: %v", missing))
}

func directGet(e *env) error {
	_, err := e.js.AddStream(&nats.StreamConfig{Name: "DIRECT", Subjects: []string{"direct.>"}, AllowDirect: true})
	err = firstError(step(err, "add"), publishAll(e, "direct.a", "d1"), publishAll(e, "direct.b", "d2"),
		publishAll(e, "direct.a", "d3"))
	if err != nil {
		return err
	}
	bySeq, err := e.js.GetMsg("DIRECT", 2, nats.DirectGet())
	if err != nil {
		return step(err, "direct get 2")
	}
	last, err := e.js.GetLastMsg("DIRECT", "direct.a", nats.DirectGet())
	if err != nil {
		return step(err, "direct get last")
	}
	_, missing := e.js.GetMsg("DIRECT", 9, nats.DirectGet())
	return firstError(same([]interface{}{bySeq.Subject, bySeq.Sequence, string(bySeq.Data)},
		[]interface{}{"direct.b", 2, "d2"}, "by sequence 2"),
		same([]interface{}{last.Subject, last.Sequence, string(last.Data)}, []interface{}{"direct.a", 3, "d3"},
			"last of direct.a"),
		check(missing == nats.ErrMsgNotFound, "direct get of a missing sequence: %v", missing))
}

func purge(e *env) error {
	err := firstError(addStream(e, "PURGE", "purge.>"), publishAll(e, "purge.a", "1", "2", "3"),
		publishAll(e, "purge.b", "4"))
	if err != nil {
		return err
	}
	if err := e.js.PurgeStream("PURGE", &nats.StreamPurgeRequest{Subject: "purge.a", Keep: 1}); err != nil {
		return step(err, "purge purge.a keep 1")
	}
	kept, err := e.js.StreamInfo("PURGE")
	if err != nil {
		return step(err, "info")
	}
	if err := e.js.PurgeStream("PURGE"); err != nil {
		return step(err, "purge")
	}
	si, err := e.js.StreamInfo("PURGE")
	if err != nil {
		return step(err, "info")
	}
	return firstError(same([]interface{}{kept.State.Msgs, kept.State.FirstSeq}, []interface{}{2, 3},
		"after purge of purge.a keeping 1"),
		same([]interface{}{si.State.Msgs, si.State.FirstSeq, si.State.LastSeq}, []interface{}{0, 5, 4},
			"state after purge"))
}
