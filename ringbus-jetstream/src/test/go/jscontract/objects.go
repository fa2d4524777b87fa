package main

import (
	"bytes"
	"sort"

	"github.com/nats-io/nats.go"
)

// chunkSize makes object() five chunks: four full ones and a short one.
const chunkSize = 64 * 1024

// object returns deterministic bytes, as jscontract.js's blob(300 KiB + 123).
func object() []byte {
	data := make([]byte, 300*1024+123)
	for i := range data {
		data[i] = byte(i*31 + 7)
	}
	return data
}

// objectStore creates a bucket holding big.bin (object(), in chunks of chunkSize) and, when
// withSmall, small.txt ("tiny", one chunk).
func objectStore(e *env, bucket string, withSmall bool) (nats.ObjectStore, *nats.ObjectInfo, error) {
	os, err := e.js.CreateObjectStore(&nats.ObjectStoreConfig{Bucket: bucket})
	if err != nil {
		return nil, nil, step(err, "create object store "+bucket)
	}
	meta := &nats.ObjectMeta{Name: "big.bin", Opts: &nats.ObjectMetaOptions{ChunkSize: chunkSize}}
	info, err := os.Put(meta, bytes.NewReader(object()))
	if err != nil {
		return nil, nil, step(err, "put big.bin")
	}
	if withSmall {
		if _, err := os.PutString("small.txt", "tiny"); err != nil {
			return nil, nil, step(err, "put small.txt")
		}
	}
	return os, info, nil
}

// names lists the objects' names, sorted.
func names(os nats.ObjectStore) ([]string, error) {
	infos, err := os.List()
	var got []string
	for _, info := range infos {
		got = append(got, info.Name)
	}
	sort.Strings(got)
	return got, err
}

func osPutMultiChunk(e *env) error {
	_, info, err := objectStore(e, "files1", false)
	if err != nil {
		return err
	}
	return same([]interface{}{info.Name, info.Size, info.Chunks, info.Deleted}, []interface{}{"big.bin",
		len(object()), 5, false}, "object info")
}

func osGet(e *env) error {
	os, put, err := objectStore(e, "files2", false)
	if err != nil {
		return err
	}
	data, err := os.GetBytes("big.bin")
	if err != nil {
		return step(err, "get big.bin")
	}
	info, err := os.GetInfo("big.bin")
	if err != nil {
		return step(err, "info of big.bin")
	}
	_, missing := os.GetBytes("none.bin")
	return firstError(same(len(data), len(object()), "size"), check(bytes.Equal(data, object()), "content differs"),
		same([]interface{}{info.Size, info.Chunks, info.Digest, info.NUID}, []interface{}{put.Size, put.Chunks,
			put.Digest, put.NUID}, "info read back"),
		check(missing == nats.ErrObjectNotFound, "get of a missing object: %v", missing))
}

func osList(e *env) error {
	os, _, err := objectStore(e, "files3", true)
	if err != nil {
		return err
	}
	listed, err := names(os)
	return firstError(step(err, "list"), same(listed, []string{"big.bin", "small.txt"}, "listed"))
}

func osDelete(e *env) error {
	os, _, err := objectStore(e, "files4", true)
	if err != nil {
		return err
	}
	if err := os.Delete("big.bin"); err != nil {
		return step(err, "delete big.bin")
	}
	_, deleted := os.GetBytes("big.bin")
	listed, err := names(os)
	if err != nil {
		return step(err, "list")
	}
	si, err := e.js.StreamInfo("OBJ_files4")
	if err != nil {
		return step(err, "stream info")
	}
	small, err := os.GetString("small.txt")
	return firstError(check(deleted == nats.ErrObjectNotFound, "get of a deleted object: %v", deleted),
		same(listed, []string{"small.txt"}, "listed after delete"),
		same(si.State.Msgs, 3, "chunk and meta messages left (small.txt: 1 chunk, 1 meta; big.bin: 1 meta)"),
		step(err, "get small.txt"), same(small, "tiny", "small.txt"))
}
