package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
)

func runBucket(c config) (result, error) {
	nc, js, err := connect(c, "jsbench-kvbucket")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	if err := js.DeleteKeyValue(c.bucket); err != nil && !errors.Is(err, nats.ErrStreamNotFound) &&
		!errors.Is(err, nats.ErrBucketNotFound) {
		return result{}, fmt.Errorf("delete bucket %s: %v", c.bucket, err)
	}
	if _, err := js.CreateKeyValue(&nats.KeyValueConfig{Bucket: c.bucket, History: 1,
		Storage: nats.FileStorage}); err != nil {
		return result{}, fmt.Errorf("create bucket %s: %v", c.bucket, err)
	}
	return result{}, nil
}

func bucket(c config, name string) (*nats.Conn, nats.KeyValue, error) {
	nc, js, err := connect(c, name)
	if err != nil {
		return nil, nil, err
	}
	kv, err := js.KeyValue(c.bucket)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("bucket %s: %v", c.bucket, err)
	}
	return nc, kv, nil
}

func key(i int64, keys int) string {
	return "k" + strconv.FormatInt(i%int64(keys), 10)
}

func runKvPut(c config) (result, error) {
	nc, kv, err := bucket(c, "jsbench-kvput")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	value := make([]byte, c.size)
	return timed(c, func(i int64) error {
		_, err := kv.Put(key(i, c.keys), value)
		return err
	})
}

func runKvFill(c config) (result, error) {
	nc, kv, err := bucket(c, "jsbench-kvfill")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	value := make([]byte, c.size)
	for i := 0; i < c.keys; i++ {
		if _, err := kv.Put(key(int64(i), c.keys), value); err != nil {
			return result{}, fmt.Errorf("put %s: %v", key(int64(i), c.keys), err)
		}
	}
	return result{Messages: int64(c.keys), Total: int64(c.keys)}, nil
}

func runKvGet(c config) (result, error) {
	nc, kv, err := bucket(c, "jsbench-kvget")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	return timed(c, func(i int64) error {
		e, err := kv.Get(key(i, c.keys))
		if err == nil && len(e.Value()) != c.size {
			return fmt.Errorf("%s holds %d bytes, %d were put", e.Key(), len(e.Value()), c.size)
		}
		return err
	})
}
