// Command jscontract runs the JetStream client contract with nats.go 1.22 (Debian's
// golang-github-nats-io-go-nats-dev, its JetStream, KV and object-store APIs, unchanged), as
// src/test/node/jscontract.js runs it with nats.js and src/test/c/jscontract.c with nats.c:
//
//	jscontract nats://127.0.0.1:4222 [case ...]
//
// Prints one line per case, "<case> ok" or "<case> fail <reason>", then "done". Each case makes
// its own stream or bucket, so that one failure does not hide the others, and is bounded by
// caseTimeout (every client call by the client's own waits, apiWait). Exits 0 once every case
// has run: which cases must pass is the JUnit test's decision (GoJetStreamContractTest), against
// nats-server 2.9.10 -js and against ringbus-server.
//
// Build (GOPATH mode, nothing downloaded):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o jscontract ./src/test/go/jscontract
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

const (
	// apiWait bounds each JetStream API request and each message wait.
	apiWait = 3 * time.Second
	// caseTimeout bounds one case; a case that overruns is reported as failed and left behind.
	caseTimeout = 15 * time.Second
)

// env is what every case gets: the connection and its JetStream context.
type env struct {
	nc *nats.Conn
	js nats.JetStreamContext
}

type contractCase struct {
	name string
	run  func(e *env) error
}

// cases, in the order of JetStreamClientContractTest.CASES, then OBJECT_STORE_CASES, then the
// nats.go KV cases (GoJetStreamContractTest.GO_KV_CASES).
var cases = []contractCase{
	{"account_info", accountInfo},
	{"stream_add", streamAdd},
	{"stream_info", streamInfo},
	{"stream_update", streamUpdate},
	{"stream_multiple_subjects", streamMultipleSubjects},
	{"stream_list", streamList},
	{"stream_delete", streamDelete},
	{"publish_puback", publishPubAck},
	{"publish_msg_id_duplicate", publishMsgIDDuplicate},
	{"get_msg_by_seq", getMsgBySeq},
	{"get_last_msg_by_subject", getLastMsgBySubject},
	{"direct_get", directGet},
	{"purge", purge},
	{"pull_fetch_ack", pullFetchAck},
	{"pull_nak_redelivery", pullNakRedelivery},
	{"push_consumer", pushConsumer},
	{"ordered_consumer", orderedConsumer},
	{"durable_info_after_acks", durableInfoAfterAcks},
	{"kv_create_bucket", kvCreateBucket},
	{"kv_put_get", kvPutGet},
	{"kv_create_exists", kvCreateExists},
	{"kv_update_revision", kvUpdateRevision},
	{"kv_delete", kvDelete},
	{"kv_purge", kvPurge},
	{"kv_history", kvHistory},
	{"kv_keys", kvKeys},
	{"kv_watch", kvWatch},
	{"os_put_multi_chunk", osPutMultiChunk},
	{"os_get", osGet},
	{"os_list", osList},
	{"os_delete", osDelete},
	{"kv_create_after_delete", kvCreateAfterDelete},
	{"kv_purge_deletes", kvPurgeDeletes},
	{"kv_keys_meta_only", kvKeysMetaOnly},
	{"kv_watch_ignore_deletes", kvWatchIgnoreDeletes},
	{"kv_status", kvStatus},
}

// check returns nil when ok holds, else an error made of format and args.
func check(ok bool, format string, args ...interface{}) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// same compares two values by their printed form (%v) and names what differs.
func same(actual, expected interface{}, what string) error {
	a, e := fmt.Sprintf("%v", actual), fmt.Sprintf("%v", expected)
	return check(a == e, "%s: expected %s, got %s", what, e, a)
}

// step wraps a client call's error with what was being done.
func step(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// firstError returns the first non-nil error: a case's checks, in order.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runCase runs one case within caseTimeout; a panic is that case's failure.
func runCase(e *env, c contractCase) (err error) {
	result := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				result <- fmt.Errorf("panic: %v", p)
			}
		}()
		result <- c.run(e)
	}()
	select {
	case err = <-result:
		return err
	case <-time.After(caseTimeout):
		return fmt.Errorf("no result within %s", caseTimeout)
	}
}

func selected(name string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == name {
			return true
		}
	}
	return false
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "usage: %s nats://host:port [case ...]\n", os.Args[0])
		os.Exit(2)
	}
	nc, err := nats.Connect(os.Args[1], nats.Name("jscontract"), nats.Timeout(apiWait), nats.NoReconnect())
	if err != nil {
		fmt.Printf("fail setup %v\n", err)
		os.Exit(1)
	}
	js, err := nc.JetStream(nats.MaxWait(apiWait))
	if err != nil {
		fmt.Printf("fail setup %v\n", err)
		os.Exit(1)
	}
	e := &env{nc: nc, js: js}
	for _, c := range cases {
		if !selected(c.name, os.Args[2:]) {
			continue
		}
		if err := runCase(e, c); err != nil {
			fmt.Printf("%s fail %s\n", c.name, strings.Join(strings.Fields(err.Error()), " "))
		} else {
			fmt.Printf("%s ok\n", c.name)
		}
	}
	fmt.Println("done")
	nc.Close()
}
