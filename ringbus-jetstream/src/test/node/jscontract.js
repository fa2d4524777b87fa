'use strict';
// The JetStream client contract with nats.js (npm "nats" 2.x: its JetStream, KV and object-store
// APIs, unchanged), as src/test/c/jscontract.c runs it with nats.c:
//
//   NODE_PATH=ringbus-server/src/test/node/node_modules node jscontract.js nats://127.0.0.1:4222
//
// Prints one line per case, "<case> ok" or "<case> fail <reason>", then "done". Each case makes
// its own stream (or bucket) so that one failure does not hide the others; every wait is bounded
// (CASE_MS). Exits 0 once every case has run: which ones must pass is the JUnit test's decision
// (JsContractTest), against nats-server 2.9.10 -js and against ringbus-server.

const {
    connect, consumerOpts, createInbox, headers, AckPolicy, DeliverPolicy, StringCodec,
} = require('nats');

const CASE_MS = 5000;
const sc = StringCodec();

class Failure extends Error {
}

function check(condition, what) {
    if (!condition) {
        throw new Failure(what);
    }
}

function same(actual, expected, what) {
    check(JSON.stringify(actual) === JSON.stringify(expected),
        `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Runs fn and expects it to throw; returns the error. */
async function refused(fn, what) {
    try {
        await fn();
    } catch (e) {
        return e;
    }
    throw new Failure(`${what}: expected an error, got success`);
}

/** Takes n messages from an async iterator, each within CASE_MS (the case's own limit bounds it). */
async function take(iterator, n) {
    const out = [];
    if (n === 0) {
        return out;
    }
    for await (const m of iterator) {
        out.push(m);
        if (out.length === n) {
            break;
        }
    }
    return out;
}

async function publishAll(js, subject, bodies) {
    for (const body of bodies) {
        await js.publish(subject, sc.encode(body));
    }
}

const cases = [];
function contract(name, fn) {
    cases.push([name, fn]);
}

contract('account_info', async ({ jsm }) => {
    const before = await jsm.getAccountInfo();
    await jsm.streams.add({ name: 'ACCT', subjects: ['acct.>'] });
    const after = await jsm.getAccountInfo();
    same(after.streams, before.streams + 1, 'streams after add');
    check(typeof after.limits === 'object', 'limits missing');
});

contract('stream_add', async ({ jsm }) => {
    const si = await jsm.streams.add({ name: 'CRUD', subjects: ['crud.>'], max_msgs: 100 });
    same([si.config.name, si.config.subjects, si.config.max_msgs, si.state.messages],
        ['CRUD', ['crud.>'], 100, 0], 'created stream');
});

contract('stream_info', async ({ js, jsm }) => {
    await publishAll(js, 'crud.a', ['one', 'two']);
    const si = await jsm.streams.info('CRUD');
    same([si.config.name, si.state.messages, si.state.first_seq, si.state.last_seq], ['CRUD', 2, 1, 2], 'info');
    const missing = await refused(() => jsm.streams.info('NOPE'), 'info of a missing stream');
    check(/stream not found/.test(missing.message), `missing stream error: ${missing.message}`);
});

contract('stream_update', async ({ jsm }) => {
    const si = await jsm.streams.update('CRUD', { max_msgs: 50 });
    same([si.config.subjects, si.config.max_msgs, si.state.messages], [['crud.>'], 50, 2], 'updated');
    same((await jsm.streams.info('CRUD')).config.max_msgs, 50, 'max_msgs read back');
});

contract('stream_multiple_subjects', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'MULTI', subjects: ['multi.a', 'multi.b.>'] });
    await publishAll(js, 'multi.a', ['a']);
    await publishAll(js, 'multi.b.x', ['b']);
    await jsm.streams.update('MULTI', { subjects: ['multi.a', 'multi.b.>', 'multi.c'] });
    await publishAll(js, 'multi.c', ['c']);
    const si = await jsm.streams.info('MULTI');
    same([si.config.subjects.length, si.state.messages], [3, 3], 'subjects and messages');
});

contract('stream_list', async ({ jsm }) => {
    await jsm.streams.add({ name: 'LISTED', subjects: ['listed.>'] });
    const names = [];
    for await (const si of jsm.streams.list()) {
        names.push(si.config.name);
    }
    check(names.includes('CRUD') && names.includes('LISTED'), `list: ${names}`);
    const byName = [];
    for await (const name of jsm.streams.names()) {
        byName.push(name);
    }
    same(byName.sort(), names.sort(), 'names');
    same(await jsm.streams.find('listed.x'), 'LISTED', 'find by subject');
});

contract('stream_delete', async ({ jsm }) => {
    same(await jsm.streams.delete('CRUD'), true, 'delete');
    const gone = await refused(() => jsm.streams.info('CRUD'), 'info after delete');
    check(/stream not found/.test(gone.message), `after delete: ${gone.message}`);
});

contract('publish_puback', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'PUB', subjects: ['pub.>'] });
    const a = await js.publish('pub.a', sc.encode('1'));
    const b = await js.publish('pub.b', sc.encode('2'));
    same([a.stream, a.seq, a.duplicate, b.seq], ['PUB', 1, false, 2], 'pub acks');
    const none = await refused(() => js.publish('nostream.here', sc.encode('x')), 'publish without a stream');
    check(/503|no responders/i.test(none.message), `without a stream: ${none.message}`);
});

contract('publish_msg_id_duplicate', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'DEDUP', subjects: ['dedup.>'] });
    const first = await js.publish('dedup.a', sc.encode('x'), { msgID: 'id-1' });
    const again = await js.publish('dedup.a', sc.encode('x'), { msgID: 'id-1' });
    const other = await js.publish('dedup.a', sc.encode('y'), { msgID: 'id-2' });
    same([first.seq, first.duplicate, again.seq, again.duplicate, other.seq, other.duplicate],
        [1, false, 1, true, 2, false], 'acks');
    same((await jsm.streams.info('DEDUP')).state.messages, 2, 'messages stored');
});

contract('get_msg_by_seq', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'GET', subjects: ['get.>'] });
    const h = headers();
    h.set('X-Case', 'get');
    await js.publish('get.a', sc.encode('first'), { headers: h });
    await publishAll(js, 'get.b', ['second']);
    const m = await jsm.streams.getMessage('GET', { seq: 1 });
    same([m.subject, m.seq, sc.decode(m.data), m.header.get('X-Case')], ['get.a', 1, 'first', 'get'], 'message 1');
    const missing = await refused(() => jsm.streams.getMessage('GET', { seq: 9 }), 'get of a missing sequence');
    check(/no message found/.test(missing.message), `missing: ${missing.message}`);
});

contract('get_last_msg_by_subject', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'LAST', subjects: ['last.>'] });
    await publishAll(js, 'last.a', ['a1']);
    await publishAll(js, 'last.b', ['b1']);
    await publishAll(js, 'last.a', ['a2']);
    const m = await jsm.streams.getMessage('LAST', { last_by_subj: 'last.a' });
    same([m.subject, m.seq, sc.decode(m.data)], ['last.a', 3, 'a2'], 'last of last.a');
});

contract('direct_get', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'DIRECT', subjects: ['direct.>'], allow_direct: true });
    await publishAll(js, 'direct.a', ['d1']);
    await publishAll(js, 'direct.b', ['d2']);
    await publishAll(js, 'direct.a', ['d3']);
    const bySeq = await jsm.direct.getMessage('DIRECT', { seq: 2 });
    same([bySeq.subject, bySeq.seq, sc.decode(bySeq.data)], ['direct.b', 2, 'd2'], 'by sequence 2');
    const last = await jsm.direct.getMessage('DIRECT', { last_by_subj: 'direct.a' });
    same([last.subject, last.seq, sc.decode(last.data)], ['direct.a', 3, 'd3'], 'last of direct.a');
});

contract('purge', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'PURGE', subjects: ['purge.>'] });
    await publishAll(js, 'purge.a', ['1', '2', '3']);
    await publishAll(js, 'purge.b', ['4']);
    same((await jsm.streams.purge('PURGE', { filter: 'purge.a', keep: 1 })).purged, 2, 'purged with filter, keep 1');
    same((await jsm.streams.purge('PURGE')).purged, 2, 'purged the rest');
    const si = await jsm.streams.info('PURGE');
    same([si.state.messages, si.state.first_seq, si.state.last_seq], [0, 5, 4], 'state after purge');
});

contract('pull_fetch_ack', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'PULL', subjects: ['pull.>'] });
    await publishAll(js, 'pull.x', ['m1', 'm2', 'm3', 'm4', 'm5']);
    await jsm.consumers.add('PULL', { durable_name: 'puller', ack_policy: AckPolicy.Explicit });
    const consumer = await js.consumers.get('PULL', 'puller');
    const seen = [];
    for (const batch of [3, 3]) {
        const messages = await consumer.fetch({ max_messages: batch, expires: 1000 });
        for await (const m of messages) {
            seen.push(`${sc.decode(m.data)}@${m.info.streamSequence}`);
            check(await m.ackAck(), `ack of ${m.seq}`);
        }
    }
    same(seen, ['m1@1', 'm2@2', 'm3@3', 'm4@4', 'm5@5'], 'fetched');
    const ci = await jsm.consumers.info('PULL', 'puller');
    same([ci.num_ack_pending, ci.num_pending], [0, 0], 'after acks');
});

contract('pull_nak_redelivery', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'NAK', subjects: ['nak.>'] });
    await publishAll(js, 'nak.x', ['n1', 'n2']);
    await jsm.consumers.add('NAK', { durable_name: 'naker', ack_policy: AckPolicy.Explicit, ack_wait: 30e9 });
    const consumer = await js.consumers.get('NAK', 'naker');
    const first = await take(await consumer.fetch({ max_messages: 1, expires: 2000 }), 1);
    same([sc.decode(first[0].data), first[0].redelivered], ['n1', false], 'first delivery');
    first[0].nak();
    // n1 again and n2, in either order: the server may serve the fetch before it has the nak
    const again = [];
    while (again.length < 2) {
        again.push(...await take(await consumer.fetch({ max_messages: 2 - again.length, expires: 2000 }),
            2 - again.length));
    }
    same(again.map((m) => [sc.decode(m.data), m.redelivered, m.info.deliveryCount]).sort(),
        [['n1', true, 2], ['n2', false, 1]], 'after nak');
    for (const m of again) {
        await m.ackAck();
    }
    const ci = await jsm.consumers.info('NAK', 'naker');
    same([ci.num_redelivered, ci.ack_floor.stream_seq], [0, 2], 'consumer after acks');
});

contract('push_consumer', async ({ nc, js, jsm }) => {
    await jsm.streams.add({ name: 'PUSH', subjects: ['push.>'] });
    await publishAll(js, 'push.x', ['p1', 'p2', 'p3']);
    const deliver = createInbox();
    const opts = consumerOpts().durable('pusher').deliverTo(deliver).ackExplicit().manualAck();
    const sub = await js.subscribe('push.>', opts);
    const got = [];
    for await (const m of sub) {
        got.push(`${sc.decode(m.data)} ${m.subject}`);
        m.ack();
        if (got.length === 3) {
            break;
        }
    }
    same(got, ['p1 push.x', 'p2 push.x', 'p3 push.x'], 'pushed');
    await nc.flush();
    const ci = await jsm.consumers.info('PUSH', 'pusher');
    same([ci.config.deliver_subject, ci.delivered.stream_seq], [deliver, 3], 'push consumer info');
});

contract('ordered_consumer', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'ORDERED', subjects: ['ordered.>'] });
    await publishAll(js, 'ordered.a', ['o1', 'o2']);
    await publishAll(js, 'ordered.b', ['o3']);
    // one filter as a string: an array becomes filter_subjects, which nats-server 2.9 does not know
    const filtered = await js.consumers.get('ORDERED', { filterSubjects: 'ordered.a' });
    const some = await take(await filtered.consume(), 2);
    same(some.map((m) => sc.decode(m.data)), ['o1', 'o2'], 'ordered pull consumer on ordered.a');
    const consumer = await js.consumers.get('ORDERED');
    const pulled = await take(await consumer.consume(), 3);
    same(pulled.map((m) => sc.decode(m.data)), ['o1', 'o2', 'o3'], 'ordered pull consumer');
    const sub = await js.subscribe('ordered.>', consumerOpts().orderedConsumer());
    const pushed = await take(sub, 3);
    same(pushed.map((m) => `${sc.decode(m.data)}@${m.info.streamSequence}`), ['o1@1', 'o2@2', 'o3@3'],
        'ordered push consumer');
    sub.unsubscribe();
});

contract('durable_info_after_acks', async ({ js, jsm }) => {
    await jsm.streams.add({ name: 'FLOOR', subjects: ['floor.>'] });
    await publishAll(js, 'floor.x', ['f1', 'f2', 'f3', 'f4', 'f5']);
    await jsm.consumers.add('FLOOR', { durable_name: 'floor', ack_policy: AckPolicy.Explicit });
    const consumer = await js.consumers.get('FLOOR', 'floor');
    const messages = await take(await consumer.fetch({ max_messages: 3, expires: 2000 }), 3);
    await messages[0].ackAck();
    await messages[1].ackAck();
    const ci = await jsm.consumers.info('FLOOR', 'floor');
    same([ci.name, ci.config.durable_name, ci.delivered.stream_seq, ci.ack_floor.stream_seq, ci.ack_floor.consumer_seq,
        ci.num_ack_pending, ci.num_pending], ['floor', 'floor', 3, 2, 2, 1, 2], 'consumer info');
    const names = [];
    for await (const c of jsm.consumers.list('FLOOR')) {
        names.push(c.name);
    }
    same(names, ['floor'], 'consumer list');
});

contract('kv_create_bucket', async ({ js }) => {
    const kv = await js.views.kv('conf', { history: 5 });
    const status = await kv.status();
    same([status.bucket, status.history, status.values], ['conf', 5, 0], 'bucket status');
});

contract('kv_put_get', async ({ js }) => {
    const kv = await js.views.kv('kvpg', { history: 5 });
    const rev = await kv.put('color', sc.encode('blue'));
    const e = await kv.get('color');
    same([e.key, sc.decode(e.value), e.revision, e.operation, rev], ['color', 'blue', rev, 'PUT', 1], 'entry');
    same(await kv.get('absent'), null, 'absent key');
});

contract('kv_create_exists', async ({ js }) => {
    const kv = await js.views.kv('kvcr');
    same(await kv.create('k', sc.encode('v1')), 1, 'create revision');
    const e = await refused(() => kv.create('k', sc.encode('v2')), 'create of an existing key');
    check(/wrong last sequence|exists/.test(e.message), `create existing: ${e.message}`);
    same(sc.decode((await kv.get('k')).value), 'v1', 'value kept');
});

contract('kv_update_revision', async ({ js }) => {
    const kv = await js.views.kv('kvup');
    const r1 = await kv.put('k', sc.encode('v1'));
    const r2 = await kv.update('k', sc.encode('v2'), r1);
    same(r2, r1 + 1, 'update revision');
    const e = await refused(() => kv.update('k', sc.encode('v3'), r1), 'update with a stale revision');
    check(/wrong last sequence/.test(e.message), `stale update: ${e.message}`);
    same(sc.decode((await kv.get('k')).value), 'v2', 'value after refused update');
});

contract('kv_delete', async ({ js }) => {
    const kv = await js.views.kv('kvdel', { history: 5 });
    await kv.put('k', sc.encode('v'));
    await kv.delete('k');
    const e = await kv.get('k');
    same(e === null ? null : e.operation, 'DEL', 'entry after delete');
    same(await kv.create('k', sc.encode('again')), 3, 'create after delete');
});

contract('kv_purge', async ({ js, jsm }) => {
    const kv = await js.views.kv('kvpurge', { history: 5 });
    await kv.put('k', sc.encode('v1'));
    await kv.put('k', sc.encode('v2'));
    await kv.put('other', sc.encode('x'));
    await kv.purge('k');
    const e = await kv.get('k');
    same(e === null ? null : e.operation, 'PURGE', 'entry after purge');
    same((await jsm.streams.info('KV_kvpurge')).state.messages, 2, 'messages after purge (marker and other)');
});

contract('kv_history', async ({ js }) => {
    const kv = await js.views.kv('kvhist', { history: 3 });
    for (const v of ['v1', 'v2', 'v3', 'v4']) {
        await kv.put('k', sc.encode(v));
    }
    await kv.delete('k');
    const entries = [];
    for await (const e of await kv.history({ key: 'k' })) {
        entries.push(`${e.operation}:${sc.decode(e.value)}@${e.revision}`);
    }
    same(entries, ['PUT:v3@3', 'PUT:v4@4', 'DEL:@5'], 'history (3 kept)');
});

contract('kv_keys', async ({ js }) => {
    const kv = await js.views.kv('kvkeys');
    for (const k of ['a', 'b.c', 'b.d', 'gone']) {
        await kv.put(k, sc.encode(k));
    }
    await kv.put('a', sc.encode('again'));
    await kv.delete('gone');
    const keys = [];
    for await (const k of await kv.keys()) {
        keys.push(k);
    }
    same(keys.sort(), ['a', 'b.c', 'b.d'], 'keys');
    const filtered = [];
    for await (const k of await kv.keys('b.*')) {
        filtered.push(k);
    }
    same(filtered.sort(), ['b.c', 'b.d'], 'keys b.*');
});

contract('kv_watch', async ({ js }) => {
    // History 2: with 1 the delete supersedes the put it follows, and whether a watcher sees that put
    // depends on timing, on nats-server as on ringbus.
    const kv = await js.views.kv('kvwatch', { history: 2 });
    await kv.put('a', sc.encode('1'));
    const watcher = await kv.watch({ key: 'a' });
    const seen = [];
    const done = (async () => {
        for await (const e of watcher) {
            seen.push(`${e.operation} ${e.key}=${sc.decode(e.value)}`);
            if (seen.length === 3) {
                break;
            }
        }
    })();
    await kv.put('b', sc.encode('ignored'));
    await kv.put('a', sc.encode('2'));
    await kv.delete('a');
    await done;
    same(seen, ['PUT a=1', 'PUT a=2', 'DEL a='], 'watched');
});

/** Deterministic bytes: a chunked object's content. */
function blob(size) {
    const data = new Uint8Array(size);
    for (let i = 0; i < size; i++) {
        data[i] = (i * 31 + 7) & 0xff;
    }
    return data;
}

const OBJECT = blob(300 * 1024 + 123);

contract('os_put_multi_chunk', async ({ js }) => {
    const os = await js.views.os('files');
    const info = await os.putBlob({ name: 'big.bin', options: { max_chunk_size: 64 * 1024 } }, OBJECT);
    same([info.name, info.size, info.chunks], ['big.bin', OBJECT.length, 5], 'object info');
});

contract('os_get', async ({ js }) => {
    const os = await js.views.os('files');
    const data = await os.getBlob('big.bin');
    check(data !== null, 'object missing');
    same(data.length, OBJECT.length, 'size');
    check(Buffer.from(data).equals(Buffer.from(OBJECT)), 'content differs');
});

contract('os_list', async ({ js }) => {
    const os = await js.views.os('files');
    await os.putBlob({ name: 'small.txt' }, sc.encode('tiny'));
    same((await os.list()).map((i) => i.name).sort(), ['big.bin', 'small.txt'], 'listed');
});

contract('os_delete', async ({ js, jsm }) => {
    const os = await js.views.os('files');
    await os.delete('big.bin');
    same(await os.getBlob('big.bin'), null, 'deleted object');
    same((await os.list()).map((i) => i.name), ['small.txt'], 'listed after delete');
    const si = await jsm.streams.info('OBJ_files');
    same(si.state.messages, 3, 'chunk and meta messages left (small.txt: 1 chunk, 1 meta; big.bin: 1 meta)');
});

function withDeadline(promise, ms) {
    let timer;
    const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Failure(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function main() {
    const url = process.argv[2];
    const only = process.argv.slice(3);
    const nc = await connect({ servers: url, name: 'jscontract', timeout: CASE_MS, reconnect: false });
    const jsm = await nc.jetstreamManager();
    const js = nc.jetstream();
    for (const [name, fn] of cases) {
        if (only.length > 0 && !only.includes(name)) {
            continue;
        }
        try {
            await withDeadline(fn({ nc, js, jsm }), CASE_MS);
            console.log(`${name} ok`);
        } catch (e) {
            const reason = e instanceof Failure ? e.message : `${e.name}: ${e.message} ${e.code ?? ''}`;
            console.log(`${name} fail ${reason.replace(/\s+/g, ' ').trim()}`);
        }
    }
    console.log('done');
    await withDeadline(nc.close(), CASE_MS).catch(() => {});
}

main().then(() => process.exit(0), (e) => {
    console.log(`fail setup ${e.message}`);
    process.exit(1);
});
