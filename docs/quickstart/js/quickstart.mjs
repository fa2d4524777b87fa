// The ringbus quick start with nats.js (npm "nats"): connect, publish and subscribe, request and
// reply, and a publish that ringbus acknowledges once the message is stored (docs/quickstart/js.md).
import { connect, StringCodec } from "nats";

const url = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const nc = await connect({ servers: url });
console.log(`connected to ${url}`);
const sc = StringCodec();

// Subscribe, then publish: the subscription receives the message.
const greetings = nc.subscribe("greet.*", { max: 1, timeout: 2000 });
nc.publish("greet.joe", sc.encode("hello"));
for await (const msg of greetings) {
  console.log(`received ${msg.subject}: ${sc.decode(msg.data)}`);
}

// Request and reply: a responder on "ping" answers every request.
nc.subscribe("ping", { callback: (err, request) => request.respond(sc.encode("pong")) });
const reply = await nc.request("ping", sc.encode(""), { timeout: 2000 });
console.log(`reply ${sc.decode(reply.data)}`);

// Durable publish: orders.> is stored (ringbus.properties), and JetStream's publish resolves once
// the message is on disk, with the stream and the message's sequence in it.
const js = nc.jetstream();
const ack = await js.publish("orders.new", sc.encode("order from js"));
console.log(`stored in stream ${ack.stream} seq ${ack.seq}`);

await nc.drain();
