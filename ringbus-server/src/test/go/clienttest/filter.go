package main

// The content-filter case: ringbus only (nats-server has no $RB API). A plain nats.go request to
// $RB.API.FILTER attaches an SNS filter policy to the subscriptions the connection makes on a
// subject; nothing in the client changes.

import (
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

func contentFilter() error {
	nc, err := connect("go-filter", nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	policy := `{"subject":"go.orders","headers":{"region":["eu"],"amount":[{"numeric":[">",100]}]}}`
	reply, err := nc.Request("$RB.API.FILTER", []byte(policy), waitTimeout)
	if err != nil {
		return err
	}
	if !strings.Contains(string(reply.Data), `"applied":0`) {
		return fmt.Errorf("filter request answered %s", reply.Data)
	}
	s, err := nc.SubscribeSync("go.orders")
	if err != nil {
		return err
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	for _, o := range []struct {
		region string
		amount int
	}{{"eu", 150}, {"us", 150}, {"eu", 50}, {"eu", 101}} {
		m := nats.NewMsg("go.orders")
		m.Header.Set("region", o.region)
		m.Header.Set("amount", fmt.Sprint(o.amount))
		m.Data = []byte(fmt.Sprintf("%s:%d", o.region, o.amount))
		if err := nc.PublishMsg(m); err != nil {
			return err
		}
	}
	if err := nc.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	var got []string
	for {
		m, err := s.NextMsg(500 * time.Millisecond)
		if err != nil {
			break
		}
		got = append(got, string(m.Data))
	}
	if strings.Join(got, ",") != "eu:150,eu:101" {
		return fmt.Errorf("filtered subscription got %v, want [eu:150 eu:101]", got)
	}
	bad, err := nc.Request("$RB.API.FILTER", []byte(`{"subject":"go.orders","headers":{"amount":[{"numeric":[">","x"]}]}}`), waitTimeout)
	if err != nil {
		return err
	}
	if !strings.Contains(string(bad.Data), `"code":400`) || !strings.Contains(string(bad.Data), "$.amount[0]") {
		return fmt.Errorf("a bad policy was answered %s", bad.Data)
	}
	return nil
}
