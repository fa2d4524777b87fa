// The ringbus quick start with nats.c: connect, publish and subscribe, request and reply, and a
// publish that ringbus acknowledges once the message is stored (docs/quickstart/c.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nats/nats.h>

static void check(natsStatus s, const char *what)
{
    if (s != NATS_OK)
    {
        fprintf(stderr, "%s: %s\n", what, natsStatus_GetText(s));
        nats_PrintLastErrorStack(stderr);
        exit(1);
    }
}

// The responder: answers every request on "ping" with "pong".
static void onPing(natsConnection *nc, natsSubscription *sub, natsMsg *request, void *closure)
{
    (void) sub;
    (void) closure;
    natsConnection_PublishString(nc, natsMsg_GetReply(request), "pong");
    natsMsg_Destroy(request);
}

int main(void)
{
    const char *url = getenv("NATS_URL");
    if (url == NULL)
        url = "nats://127.0.0.1:4222";
    natsConnection *nc = NULL;
    check(natsConnection_ConnectTo(&nc, url), "connect");
    printf("connected to %s\n", url);

    // Subscribe, then publish: the subscription receives the message.
    natsSubscription *greetings = NULL;
    natsMsg *greeting = NULL;
    check(natsConnection_SubscribeSync(&greetings, nc, "greet.*"), "subscribe");
    check(natsConnection_PublishString(nc, "greet.joe", "hello"), "publish");
    check(natsSubscription_NextMsg(&greeting, greetings, 2000), "next message");
    printf("received %s: %.*s\n", natsMsg_GetSubject(greeting), natsMsg_GetDataLength(greeting),
           natsMsg_GetData(greeting));

    // Request and reply: a responder on "ping" answers every request.
    natsSubscription *responder = NULL;
    natsMsg *reply = NULL;
    check(natsConnection_Subscribe(&responder, nc, "ping", onPing, NULL), "responder");
    check(natsConnection_RequestString(&reply, nc, "ping", "", 2000), "request");
    printf("reply %.*s\n", natsMsg_GetDataLength(reply), natsMsg_GetData(reply));

    // Durable publish: orders.> is stored (ringbus.properties), and JetStream's publish returns
    // once the message is on disk, with the stream and the message's sequence in it.
    jsCtx *js = NULL;
    jsPubAck *ack = NULL;
    jsErrCode jerr = 0;
    const char *order = "order from c";
    check(natsConnection_JetStream(&js, nc, NULL), "jetstream");
    natsStatus s = js_Publish(&ack, js, "orders.new", order, (int) strlen(order), NULL, &jerr);
    if (s != NATS_OK)
        fprintf(stderr, "JetStream error %d\n", (int) jerr);
    check(s, "durable publish");
    printf("stored in stream %s seq %llu\n", ack->Stream, (unsigned long long) ack->Sequence);

    jsPubAck_Destroy(ack);
    jsCtx_Destroy(js);
    natsMsg_Destroy(reply);
    natsSubscription_Destroy(responder);
    natsMsg_Destroy(greeting);
    natsSubscription_Destroy(greetings);
    natsConnection_Destroy(nc);
    nats_Close();
    return 0;
}
