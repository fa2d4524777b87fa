'use strict';
// Drives a ringbus-server with the real nats.js client (npm package "nats").
// Usage: node client-test.js <port>
// The server must have the in-process peers NodeClientTest sets up:
//   pub.java.svc      replies "java:<request>"
//   pub.java.emit     publishes <n> messages "j0".."j<n-1>" to pub.java.to.node, then replies "sent"
//   pub.node.to.java  is recorded by an in-process subscriber (the Java side checks it)
// Prints "check <name>" per passed check, then "RESULT ok checks=<n>" and exits 0,
// or "RESULT fail <reason>" and exits 1.

const { connect, StringCodec, headers, ErrorCode } = require('nats');

const TIMEOUT_MS = 10000;
const sc = StringCodec();
let checks = 0;

function check(name, ok, detail) {
    if (!ok) {
        throw new Error(`${name}: ${detail}`);
    }
    checks++;
    console.log(`check ${name}`);
}

/** Collects the next `count` messages of a subscription, failing after TIMEOUT_MS. */
async function take(sub, count) {
    const got = [];
    if (count === 0) {
        return got;
    }
    const timer = setTimeout(() => sub.unsubscribe(), TIMEOUT_MS);
    for await (const m of sub) {
        got.push(m);
        if (got.length === count) {
            break;
        }
    }
    clearTimeout(timer);
    if (got.length !== count) {
        throw new Error(`timed out on ${sub.getSubject()}: got ${got.length} of ${count}`);
    }
    return got;
}

/** Messages of `sub` before the one whose payload is "end". */
async function untilEnd(sub) {
    const got = [];
    const timer = setTimeout(() => sub.unsubscribe(), TIMEOUT_MS);
    for await (const m of sub) {
        if (sc.decode(m.data) === 'end') {
            clearTimeout(timer);
            return got;
        }
        got.push(m);
    }
    throw new Error(`no end marker on ${sub.getSubject()} after ${got.length} messages`);
}

async function main() {
    const port = Number(process.argv[2]);
    if (!Number.isInteger(port) || port <= 0) {
        throw new Error(`usage: node client-test.js <port>, got ${process.argv[2]}`);
    }
    const options = { servers: `127.0.0.1:${port}`, timeout: TIMEOUT_MS, reconnect: false };
    const nc = await connect({ ...options, name: 'node-main' });
    const other = await connect({ ...options, name: 'node-other' });
    const quiet = await connect({ ...options, name: 'node-quiet', noEcho: true });

    check('info', nc.info.proto === 1 && nc.info.headers === true && nc.info.max_payload === 1024,
        JSON.stringify(nc.info));

    // exact and wildcard subscriptions
    const all = nc.subscribe('pub.node.>');
    const exact = nc.subscribe('pub.node.a');
    const star = nc.subscribe('pub.node.*');
    await nc.flush();
    for (const subject of ['pub.node.a', 'pub.node.b.c', 'pub.node.d']) {
        other.publish(subject, sc.encode(subject));
    }
    other.publish('pub.node.a', sc.encode('end'));
    await other.flush();
    const subjects = (msgs) => msgs.map((m) => m.subject).join(',');
    const allGot = subjects(await untilEnd(all));
    const exactGot = subjects(await untilEnd(exact));
    const starGot = subjects(await untilEnd(star));
    check('wildcard >', allGot === 'pub.node.a,pub.node.b.c,pub.node.d', allGot);
    check('exact', exactGot === 'pub.node.a', exactGot);
    check('wildcard *', starGot === 'pub.node.a,pub.node.d', starGot);

    // queue group: each message to exactly one member
    const seen = [];
    const member = (name) => nc.subscribe('pub.node.q', {
        queue: 'workers',
        callback: (err, m) => { if (!err) seen.push(sc.decode(m.data)); },
    });
    const members = [member('m1'), member('m2'), member('m3')];
    await nc.flush();
    for (let i = 0; i < 90; i++) {
        other.publish('pub.node.q', sc.encode(String(i)));
    }
    await other.flush();
    const deadline = Date.now() + TIMEOUT_MS;
    while (seen.length < 90 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 100)); // room for a duplicate to show
    check('queue group', seen.length === 90 && new Set(seen).size === 90,
        `received ${seen.length}, distinct ${new Set(seen).size}`);
    members.forEach((s) => s.unsubscribe());

    // headers
    const hsub = nc.subscribe('pub.node.headers', { max: 1 });
    await nc.flush();
    const h = headers();
    h.append('X-Node', 'yes');
    h.append('X-Multi', 'one');
    h.append('X-Multi', 'two');
    other.publish('pub.node.headers', sc.encode('with headers'), { headers: h });
    const [hm] = await take(hsub, 1);
    check('headers', hm.headers && hm.headers.get('X-Node') === 'yes'
        && hm.headers.values('X-Multi').join(',') === 'one,two' && sc.decode(hm.data) === 'with headers',
        hm.headers ? hm.headers.toString() : 'no headers');

    // request/reply, node responder
    other.subscribe('pub.node.svc', { callback: (err, m) => { if (!err) m.respond(sc.encode(`node:${sc.decode(m.data)}`)); } });
    await other.flush();
    for (let i = 0; i < 5; i++) {
        const reply = await nc.request('pub.node.svc', sc.encode(`hi${i}`), { timeout: TIMEOUT_MS });
        check(`request node responder ${i}`, sc.decode(reply.data) === `node:hi${i}`, sc.decode(reply.data));
    }

    // request/reply, in-process responder
    for (let i = 0; i < 5; i++) {
        const reply = await nc.request('pub.java.svc', sc.encode(`hi${i}`), { timeout: TIMEOUT_MS });
        check(`request java responder ${i}`, sc.decode(reply.data) === `java:hi${i}`, sc.decode(reply.data));
    }

    // node -> in-process (the Java side checks what arrived)
    for (let i = 0; i < 10; i++) {
        nc.publish('pub.node.to.java', sc.encode(`n${i}`));
    }
    await nc.flush();

    // in-process -> node
    const fromJava = nc.subscribe('pub.java.to.node');
    await nc.flush();
    const sent = await nc.request('pub.java.emit', sc.encode('5'), { timeout: TIMEOUT_MS });
    check('java emitted', sc.decode(sent.data) === 'sent', sc.decode(sent.data));
    const javaGot = (await take(fromJava, 5)).map((m) => sc.decode(m.data)).join(',');
    check('in-process to node', javaGot === 'j0,j1,j2,j3,j4', javaGot);

    // no responders
    try {
        await nc.request('pub.nobody.home', sc.encode('anyone?'), { timeout: TIMEOUT_MS });
        check('no responders', false, 'got a reply');
    } catch (err) {
        check('no responders', err.code === ErrorCode.NoResponders, `${err.code} ${err.message}`);
    }

    // echo false
    const quietSub = quiet.subscribe('pub.node.echo');
    await quiet.flush();
    quiet.publish('pub.node.echo', sc.encode('own'));
    await quiet.flush();
    other.publish('pub.node.echo', sc.encode('end'));
    await other.flush();
    const own = await untilEnd(quietSub);
    check('no echo', own.length === 0, `received ${own.length} own messages`);

    check('still connected', !nc.isClosed() && !other.isClosed() && !quiet.isClosed(), 'a connection closed');
    await Promise.all([nc.drain(), other.drain(), quiet.drain()]);
    console.log(`RESULT ok checks=${checks}`);
}

main().then(() => process.exit(0), (err) => {
    console.log(`RESULT fail ${err && err.stack ? err.stack : err}`);
    process.exit(1);
});
