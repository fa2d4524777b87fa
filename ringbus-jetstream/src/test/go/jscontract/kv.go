package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// describe prints an entry as "<PUT|DEL|PURGE> <key>=<value>@<revision>", or "init" for the watcher's
// end-of-initial-values marker (nil).
func describe(entry nats.KeyValueEntry) string {
	if entry == nil {
		return "init"
	}
	return fmt.Sprintf("%s %s=%s@%d", operations[entry.Operation()], entry.Key(), entry.Value(), entry.Revision())
}

// operations names each operation as the KV-Operation header does (a put has none).
var operations = map[nats.KeyValueOp]string{nats.KeyValuePut: "PUT", nats.KeyValueDelete: "DEL",
	nats.KeyValuePurge: "PURGE"}

// watched reads n updates from a watcher, each within apiWait.
func watched(w nats.KeyWatcher, n int) ([]string, error) {
	var got []string
	for len(got) < n {
		select {
		case entry, open := <-w.Updates():
			if !open {
				return got, fmt.Errorf("watcher closed after %v", got)
			}
			got = append(got, describe(entry))
		case <-time.After(apiWait):
			return got, fmt.Errorf("no update within %s after %v", apiWait, got)
		}
	}
	return got, nil
}

// history describes every entry of key, oldest first.
func history(kv nats.KeyValue, key string) ([]string, error) {
	entries, err := kv.History(key)
	var got []string
	for _, entry := range entries {
		got = append(got, describe(entry))
	}
	return got, err
}

// putAll puts each key's value, in order.
func putAll(kv nats.KeyValue, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if _, err := kv.PutString(pairs[i], pairs[i+1]); err != nil {
			return fmt.Errorf("put %s: %w", pairs[i], err)
		}
	}
	return nil
}

func kvCreateBucket(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "conf", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	status, err := kv.Status()
	if err != nil {
		return step(err, "status")
	}
	// the same configuration again: nats-server answers with the existing stream
	_, again := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "conf", History: 5})
	return firstError(same([]interface{}{status.Bucket(), status.History(), status.Values()},
		[]interface{}{"conf", 5, 0}, "bucket status"), step(again, "create the same bucket again"))
}

func kvPutGet(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvpg", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	rev, err := kv.PutString("color", "blue")
	if err != nil {
		return step(err, "put")
	}
	entry, err := kv.Get("color")
	if err != nil {
		return step(err, "get")
	}
	_, absent := kv.Get("absent")
	return firstError(same([]interface{}{describe(entry), entry.Bucket(), rev}, []interface{}{"PUT color=blue@1",
		"kvpg", 1}, "entry"), check(absent == nats.ErrKeyNotFound, "get of an absent key: %v", absent))
}

func kvCreateExists(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvcr"})
	if err != nil {
		return step(err, "create bucket")
	}
	rev, err := kv.Create("k", []byte("v1"))
	if err != nil {
		return step(err, "create")
	}
	_, exists := kv.Create("k", []byte("v2"))
	entry, err := kv.Get("k")
	if err != nil {
		return step(err, "get")
	}
	return firstError(same(rev, 1, "create revision"),
		check(errors.Is(exists, nats.ErrKeyExists), "create of an existing key: %v", exists),
		same(describe(entry), "PUT k=v1@1", "value kept"))
}

func kvUpdateRevision(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvup"})
	if err != nil {
		return step(err, "create bucket")
	}
	r1, err := kv.PutString("k", "v1")
	if err != nil {
		return step(err, "put")
	}
	r2, err := kv.Update("k", []byte("v2"), r1)
	if err != nil {
		return step(err, "update")
	}
	_, stale := kv.Update("k", []byte("v3"), r1)
	entry, err := kv.Get("k")
	if err != nil {
		return step(err, "get")
	}
	return firstError(same(r2, r1+1, "update revision"),
		check(stale != nil && strings.Contains(stale.Error(), "wrong last sequence"), "stale update: %v", stale),
		same(describe(entry), "PUT k=v2@2", "value after refused update"))
}

func kvDelete(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvdel", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := firstError(putAll(kv, "k", "v"), step(kv.Delete("k"), "delete")); err != nil {
		return err
	}
	_, deleted := kv.Get("k")
	entries, err := history(kv, "k")
	if err != nil {
		return step(err, "history")
	}
	rev, err := kv.Create("k", []byte("again"))
	return firstError(check(deleted == nats.ErrKeyNotFound, "get after delete: %v", deleted),
		same(entries, []string{"PUT k=v@1", "DEL k=@2"}, "history after delete"),
		step(err, "create after delete"), same(rev, 3, "create after delete"))
}

func kvPurge(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvpurge", History: 5})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := firstError(putAll(kv, "k", "v1", "k", "v2", "other", "x"), step(kv.Purge("k"), "purge")); err != nil {
		return err
	}
	_, purged := kv.Get("k")
	entries, err := history(kv, "k")
	if err != nil {
		return step(err, "history")
	}
	si, err := e.js.StreamInfo("KV_kvpurge")
	if err != nil {
		return step(err, "stream info")
	}
	return firstError(check(purged == nats.ErrKeyNotFound, "get after purge: %v", purged),
		same(entries, []string{"PURGE k=@4"}, "history after purge"),
		same(si.State.Msgs, 2, "messages after purge (marker and other)"))
}

func kvHistory(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvhist", History: 3})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := firstError(putAll(kv, "k", "v1", "k", "v2", "k", "v3", "k", "v4"), step(kv.Delete("k"), "delete")); err != nil {
		return err
	}
	entries, err := history(kv, "k")
	return firstError(step(err, "history"), same(entries, []string{"PUT k=v3@3", "PUT k=v4@4", "DEL k=@5"},
		"history (3 kept)"))
}

func kvKeys(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvkeys"})
	if err != nil {
		return step(err, "create bucket")
	}
	err = firstError(putAll(kv, "a", "a", "b.c", "b.c", "b.d", "b.d", "gone", "gone", "a", "again"),
		step(kv.Delete("gone"), "delete"))
	if err != nil {
		return err
	}
	keys, err := kv.Keys()
	if err != nil {
		return step(err, "keys")
	}
	sort.Strings(keys)
	w, err := kv.Watch("b.*", nats.MetaOnly(), nats.IgnoreDeletes())
	if err != nil {
		return step(err, "watch b.*")
	}
	defer w.Stop()
	filtered, err := watched(w, 3)
	return firstError(same(keys, []string{"a", "b.c", "b.d"}, "keys"), step(err, "watch b.*"),
		same(filtered, []string{"PUT b.c=@2", "PUT b.d=@3", "init"}, "keys b.*"))
}

func kvWatch(e *env) error {
	kv, err := e.js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "kvwatch"})
	if err != nil {
		return step(err, "create bucket")
	}
	if err := putAll(kv, "a", "1"); err != nil {
		return err
	}
	w, err := kv.Watch("a")
	if err != nil {
		return step(err, "watch")
	}
	defer w.Stop()
	initial, err := watched(w, 2)
	if err != nil {
		return err
	}
	if err := firstError(putAll(kv, "b", "ignored", "a", "2"), step(kv.Delete("a"), "delete")); err != nil {
		return err
	}
	updates, err := watched(w, 2)
	return firstError(same(initial, []string{"PUT a=1@1", "init"}, "initial values"), err,
		same(updates, []string{"PUT a=2@3", "DEL a=@4"}, "updates"))
}
