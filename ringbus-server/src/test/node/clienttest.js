'use strict';
// Runs nats.js (npm package "nats") against a NATS server and checks what the client sees, one
// case at a time, as src/test/go/clienttest and src/test/c/clienttest.c do for nats.go and nats.c:
//
//   node clienttest.js nats://localhost:4333 pubsub connect-refused ...
//
// Prints "PASS <case>" or "FAIL <case>: <reason>" for each case and exits 1 if any failed. Every
// wait is bounded (WAIT_MS). Only the cases TlsClientContractTest runs are here: pubsub (as the
// Go and C ones), connect-refused and tls-reload.
//
// Every connection takes its TLS settings from the environment (nats.js's `tls` option):
//   CLIENTTEST_TLS_CA          PEM file of the CA the client trusts (tls.caFile)
//   CLIENTTEST_TLS_CERT, _KEY  client certificate and key, for mutual TLS (tls.certFile, keyFile)
//   CLIENTTEST_TLS_FIRST       "1": TLS handshake before INFO (tls.handshakeFirst)
//   CLIENTTEST_TLS_RELOAD_CA   tls-reload only: the CA of the certificate the server reloads
// With none set, nats.js's defaults (it still starts TLS, trusting the system's CAs, when the
// server's INFO says tls_required). Node checks the server's host name against the URL's.

const { connect } = require('nats');

const WAIT_MS = 15000;
const env = process.env;

function tlsOptions(ca = env.CLIENTTEST_TLS_CA) {
    if (!ca && !env.CLIENTTEST_TLS_CERT && env.CLIENTTEST_TLS_FIRST !== '1') {
        return {};
    }
    const tls = {};
    if (ca) {
        tls.caFile = ca;
    }
    if (env.CLIENTTEST_TLS_CERT) {
        tls.certFile = env.CLIENTTEST_TLS_CERT;
        tls.keyFile = env.CLIENTTEST_TLS_KEY;
    }
    if (env.CLIENTTEST_TLS_FIRST === '1') {
        tls.handshakeFirst = true;
    }
    return { tls };
}

// resolve: false makes one dial per URL, node trying each address of "localhost" itself: else
// nats.js dials each address as a server of its own, in random order, and where localhost is ::1
// as well as 127.0.0.1 a refusal could end on ::1's ECONNREFUSED instead of the TLS error.
function connectTo(url, name, tls = tlsOptions()) {
    return connect({ servers: url, name, timeout: WAIT_MS, reconnect: false, resolve: false, ...tls });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A subscription whose messages are taken one at a time, each within WAIT_MS. */
function inbox(nc, subject) {
    const messages = [];
    nc.subscribe(subject, { callback: (err, m) => messages.push(err ?? m) });
    return {
        async next() {
            for (const deadline = Date.now() + WAIT_MS; messages.length === 0; await sleep(5)) {
                if (Date.now() > deadline) {
                    throw new Error(`no message on ${subject}`);
                }
            }
            const m = messages.shift();
            if (m instanceof Error) {
                throw m;
            }
            return m;
        },
    };
}

async function pubsub(url) {
    const sub = await connectTo(url, 'node-sub');
    const pub = await connectTo(url, 'node-pub');
    try {
        const messages = inbox(sub, 'node.pubsub');
        await sub.flush();
        for (let i = 0; i < 100; i++) {
            pub.publish('node.pubsub', Buffer.from(`m${i}`));
        }
        const big = Uint8Array.from({ length: 512 }, (_, i) => i & 0xff); // every byte value, CR and LF
        pub.publish('node.pubsub', big);
        for (let i = 0; i < 100; i++) {
            const data = Buffer.from((await messages.next()).data).toString();
            if (data !== `m${i}`) {
                throw new Error(`message ${i} out of order: ${data}`);
            }
        }
        const back = (await messages.next()).data;
        if (Buffer.compare(Buffer.from(back), Buffer.from(big)) !== 0) {
            throw new Error(`binary payload changed: ${back.length} bytes back`);
        }
    } finally {
        await pub.close();
        await sub.close();
    }
}

/** Expects the connection to fail, and prints "REFUSED <error>" so that the caller can check why. */
async function connectRefused(url) {
    let nc;
    try {
        nc = await connectTo(url, 'node-refused');
    } catch (err) {
        const cause = err.chainedError ? ` (${err.chainedError.message})` : '';
        console.log(`REFUSED ${err.code ?? ''} ${err.message}${cause}`);
        return;
    }
    await nc.close();
    throw new Error(`connected to ${nc.getServer()} (tls_required: ${nc.info?.tls_required})`);
}

/**
 * Holds a connection while the server reloads its certificate: prints "RELOAD", after which the
 * caller replaces the certificate with one from CLIENTTEST_TLS_RELOAD_CA; a new connection
 * trusting only that CA then succeeds, the held one was never dropped, and a message goes from the
 * new connection to the held one and back.
 */
async function tlsReload(url) {
    if (!env.CLIENTTEST_TLS_RELOAD_CA) {
        throw new Error('CLIENTTEST_TLS_RELOAD_CA is not set');
    }
    const held = await connectTo(url, 'node-held');
    let dropped = null;
    (async () => {
        for await (const s of held.status()) {
            if (s.type === 'disconnect' || s.type === 'error') {
                dropped = dropped ?? `${s.type} ${s.data}`;
            }
        }
    })();
    let renewed;
    try {
        const toHeld = inbox(held, 'node.reload.held');
        await held.flush();
        console.log('RELOAD');
        for (const deadline = Date.now() + WAIT_MS; !renewed; ) {
            try {
                renewed = await connectTo(url, 'node-renewed', tlsOptions(env.CLIENTTEST_TLS_RELOAD_CA));
            } catch (err) {
                if (Date.now() > deadline) {
                    throw new Error(`no connection trusting only the renewed certificate's CA: ${err.message}`);
                }
                await sleep(100);
            }
        }
        const toRenewed = inbox(renewed, 'node.reload.renewed');
        await renewed.flush();
        renewed.publish('node.reload.held', Buffer.from('to held'));
        if (Buffer.from((await toHeld.next()).data).toString() !== 'to held') {
            throw new Error('held connection got another message');
        }
        held.publish('node.reload.renewed', Buffer.from('to renewed'));
        if (Buffer.from((await toRenewed.next()).data).toString() !== 'to renewed') {
            throw new Error('renewed connection got another message');
        }
        if (dropped !== null || held.isClosed()) {
            throw new Error(`held connection was dropped: ${dropped}`);
        }
    } finally {
        await renewed?.close();
        await held.close();
    }
}

const CASES = { pubsub, 'connect-refused': connectRefused, 'tls-reload': tlsReload };

async function main() {
    const [url, ...names] = process.argv.slice(2);
    let failed = 0;
    for (const name of names) {
        const run = CASES[name];
        try {
            if (!run) {
                throw new Error('no such case');
            }
            await run(url);
            console.log(`PASS ${name}`);
        } catch (err) {
            console.log(`FAIL ${name}: ${err.message}`);
            failed++;
        }
    }
    process.exit(failed ? 1 : 0);
}

main();
