package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// The KV behaviours of nats.go itself, beyond what every client's contract holds.

// kvCreateAfterDelete: nats.go's Create publishes with expected last subject sequence 0; when the
// key's last message is a delete or purge marker, it reads that marker and creates again with the
// marker's revision as the expected one.
func kvCreateAfterDelete(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvrecreate", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := firstError(putAll(kv, "k", "v1"), step(kv.Delete("k"), "delete")); err != nil {
		return err
	}
	afterDelete, err := kv.Create("k", []byte("v2"))
	if err != nil {
		return step(err, "create after delete")
	}
	_, exists := kv.Create("k", []byte("v3"))
	if err := step(kv.Purge("k"), "purge"); err != nil {
		return err
	}
	afterPurge, err := kv.Create("k", []byte("v4"))
	if err != nil {
		return step(err, "create after purge")
	}
	entries, err := history(kv, "k")
	return firstError(same([]interface{}{afterDelete, afterPurge}, []interface{}{3, 5}, "revisions created"),
		check(exists != nil && strings.Contains(exists.Error(), "wrong last sequence"),
			"create over a live value: %v", exists),
		step(err, "history"), same(entries, []string{"PURGE k=@4", "PUT k=v4@5"}, "history"))
}

// kvPurgeDeletes: PurgeDeletes watches every key for markers and purges each marker's subject,
// keeping the marker (purge keep 1) while it is younger than the threshold (30 minutes by
// default) and removing it with a negative threshold.
func kvPurgeDeletes(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvpurgedel", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	err = firstError(putAll(kv, "a", "1", "a", "2", "b", "1", "c", "1"), step(kv.Delete("a"), "delete a"),
		step(kv.Purge("b"), "purge b"))
	if err != nil {
		return err
	}
	// a: 1, 2, marker 5; b: marker 6 (its purge took 3); c: 4
	if err := step(kv.PurgeDeletes(), "purge deletes, recent markers kept"); err != nil {
		return err
	}
	recent, err := e.js.StreamInfo("KV_kvpurgedel")
	if err != nil {
		return step(err, "stream info")
	}
	if err := step(kv.PurgeDeletes(nats.DeleteMarkersOlderThan(-1)), "purge deletes, every marker"); err != nil {
		return err
	}
	all, err := e.js.StreamInfo("KV_kvpurgedel")
	if err != nil {
		return step(err, "stream info")
	}
	_, gone := kv.History("a")
	keys, err := kv.Keys()
	if err != nil {
		return step(err, "keys")
	}
	// a fresh Create needs no marker now: the key has no message at all
	created, err := kv.Create("a", []byte("new"))
	return firstError(same([]interface{}{recent.State.Msgs, recent.State.FirstSeq}, []interface{}{3, 4},
		"after purging older revisions (c, marker of a, marker of b)"),
		same([]interface{}{all.State.Msgs, all.State.FirstSeq, all.State.LastSeq}, []interface{}{1, 4, 6},
			"after purging the markers (c)"),
		check(gone == nats.ErrKeyNotFound, "history of a purged key: %v", gone), same(keys, []string{"c"}, "keys"),
		step(err, "create a"), same(created, 7, "create a"))
}

// kvKeysMetaOnly: Keys and MetaOnly watchers make a headers_only consumer; its messages carry
// the stored size in Nats-Msg-Size and no value.
func kvKeysMetaOnly(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvmeta"})
	if err != nil {
		return step(err, "create bucket")
	}
	big := strings.Repeat("x", 4096)
	if err := firstError(putAll(kv, "small", "v", "big", big, "gone", "g"), step(kv.Delete("gone"), "delete")); err != nil {
		return err
	}
	keys, err := kv.Keys(nats.MetaOnly())
	if err != nil {
		return step(err, "keys")
	}
	sort.Strings(keys)
	w, err := kv.WatchAll(nats.MetaOnly())
	if err != nil {
		return step(err, "watch, meta only")
	}
	defer w.Stop()
	meta, err := watched(w, 4)
	if err != nil {
		return err
	}
	sub, err := e.js.SubscribeSync("$KV.kvmeta.big", nats.BindStream("KV_kvmeta"), nats.OrderedConsumer(),
		nats.HeadersOnly())
	if err != nil {
		return step(err, "headers-only subscription")
	}
	defer sub.Unsubscribe()
	m, err := sub.NextMsg(apiWait)
	if err != nil {
		return step(err, "headers-only message")
	}
	return firstError(same(keys, []string{"big", "small"}, "keys"),
		same(meta, []string{"PUT small=@1", "PUT big=@2", "DEL gone=@4", "init"}, "meta-only watch"),
		same([]interface{}{len(m.Data), m.Header.Get(nats.MsgSize)}, []interface{}{0, len(big)},
			"headers-only message: data and Nats-Msg-Size"))
}

// kvWatchIgnoreDeletes: a watcher with IgnoreDeletes skips markers, in the initial values and in
// the updates, and still ends the initial values with its marker.
func kvWatchIgnoreDeletes(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvwatchdel"})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := firstError(putAll(kv, "a", "1", "b", "1"), step(kv.Delete("b"), "delete b")); err != nil {
		return err
	}
	w, err := kv.WatchAll(nats.IgnoreDeletes())
	if err != nil {
		return step(err, "watch")
	}
	defer w.Stop()
	initial, err := watched(w, 2)
	if err != nil {
		return err
	}
	err = firstError(putAll(kv, "c", "1"), step(kv.Delete("a"), "delete a"), step(kv.Purge("c"), "purge c"),
		putAll(kv, "d", "1"))
	if err != nil {
		return err
	}
	updates, err := watched(w, 2)
	if err != nil {
		return err
	}
	// nothing more: the delete of a and the purge of c were skipped
	select {
	case entry := <-w.Updates():
		return fmt.Errorf("update after the last put: %s", describe(entry))
	case <-time.After(200 * time.Millisecond):
	}
	return firstError(same(initial, []string{"PUT a=1@1", "init"}, "initial values"),
		same(updates, []string{"PUT c=1@4", "PUT d=1@7"}, "updates"))
}

// kvStatus: a bucket's status is its stream's info, read through KeyValue binding by name, and
// the bucket is listed by KeyValueStoreNames (a stream list filtered on $KV.*.>).
func kvStatus(e *env) error {
	_, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvstatus", Description: "status case", History: 4,
		TTL: time.Hour, MaxValueSize: 1024})
	if err != nil {
		return step(err, "create bucket")
	}
	kv, err := e.js.KeyValue("kvstatus")
	if err != nil {
		return step(err, "bind bucket")
	}
	if err := putAll(kv, "a", "1", "a", "2", "b", "1"); err != nil {
		return err
	}
	status, err := kv.Status()
	if err != nil {
		return step(err, "status")
	}
	cfg := status.(*nats.KeyValueBucketStatus).StreamInfo().Config
	_, missing := e.js.KeyValue("kvnosuch")
	var names []string
	for name := range e.js.KeyValueStoreNames() {
		names = append(names, name)
	}
	_, tooBig := kv.PutString("big", strings.Repeat("x", 2048))
	return firstError(same([]interface{}{status.Bucket(), status.Values(), status.History(), status.TTL(),
		status.BackingStore()}, []interface{}{"kvstatus", 3, 4, time.Hour, "JetStream"}, "status"),
		check(status.Bytes() > 0, "bytes: %d", status.Bytes()),
		same([]interface{}{cfg.Name, cfg.Description, cfg.MaxMsgSize, cfg.Discard, cfg.AllowRollup, cfg.DenyDelete,
			cfg.AllowDirect}, []interface{}{"KV_kvstatus", "status case", 1024, nats.DiscardNew, true, true, true},
			"stream config"),
		check(missing == nats.ErrBucketNotFound, "bind a missing bucket: %v", missing),
		check(contains(names, "KV_kvstatus"), "key-value store names: %v", names),
		check(tooBig != nil && strings.Contains(tooBig.Error(), "maximum"), "value over max_value_size: %v", tooBig))
}
