# The ringbus quick start with nats.py (pip install nats-py): connect, publish and subscribe,
# request and reply, and a publish that ringbus acknowledges once the message is stored
# (docs/quickstart/python.md).
import asyncio
import os

import nats


async def main():
    url = os.environ.get("NATS_URL", "nats://127.0.0.1:4222")
    nc = await nats.connect(url)
    print(f"connected to {url}")

    # Subscribe, then publish: the subscription receives the message.
    greetings = await nc.subscribe("greet.*")
    await nc.publish("greet.joe", b"hello")
    msg = await greetings.next_msg(timeout=2)
    print(f"received {msg.subject}: {msg.data.decode()}")

    # Request and reply: a responder on "ping" answers every request.
    async def respond(request):
        await request.respond(b"pong")

    await nc.subscribe("ping", cb=respond)
    reply = await nc.request("ping", b"", timeout=2)
    print(f"reply {reply.data.decode()}")

    # Durable publish: orders.> is stored (ringbus.properties), and JetStream's publish returns
    # once the message is on disk, with the stream and the message's sequence in it.
    js = nc.jetstream()
    ack = await js.publish("orders.new", b"order from python")
    print(f"stored in stream {ack.stream} seq {ack.seq}")

    await nc.drain()


if __name__ == "__main__":
    asyncio.run(main())
