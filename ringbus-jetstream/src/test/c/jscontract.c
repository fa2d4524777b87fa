/*
 * jscontract: the JetStream client contract with the NATS C client (Debian's libnats-dev 3.4, its
 * JetStream and KV API, unchanged), as src/test/node/jscontract.js runs it with nats.js:
 *
 *     jscontract nats://127.0.0.1:4222 [case ...]
 *
 * Prints one line per case, "<case> ok" or "<case> fail <reason>", then "done". Each case makes
 * its own stream or bucket so that one failure does not hide the others; every call is bounded
 * by the client's own timeouts (JetStream API: WAIT_MS). Exits 0 once every case has run: which
 * cases must pass is the JUnit test's decision (JsContractTest), against nats-server 2.9.10 -js
 * and against ringbus-server. nats.c 3.4 has no object store, so there are no os_ cases here.
 *
 * A failing case returns at once and leaves what it allocated: the process ends soon after.
 *
 * Build: gcc -std=c11 -Wall -Wextra -Werror -o jscontract jscontract.c jscontract_kv.c -lnats -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <nats/nats.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jscontract.h"

natsConnection *nc;
jsCtx *js;
static char failure[512];

int fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(failure, sizeof failure, format, args);
    va_end(args);
    return 1;
}

int is(const char *data, int len, const char *text) {
    return len == (int) strlen(text) && memcmp(data, text, (size_t) len) == 0;
}

static int add_stream(const char *name, const char *subject, jsStreamInfo **si) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = name;
    cfg.Subjects = (const char *[]) {subject};
    cfg.SubjectsLen = 1;
    CHECK(js_AddStream(si, js, &cfg, NULL, errCode));
    return 0;
}

static int publish(const char *subject, const char *body, uint64_t *seq) {
    jsPubAck *ack = NULL;
    CHECK(js_Publish(&ack, js, subject, body, (int) strlen(body), NULL, errCode));
    if (seq != NULL)
        *seq = ack->Sequence;
    jsPubAck_Destroy(ack);
    return 0;
}

static int publish_all(const char *subject, int count, const char *prefix) {
    char body[64];
    for (int i = 1; i <= count; i++) {
        snprintf(body, sizeof body, "%s%d", prefix, i);
        if (publish(subject, body, NULL) != 0)
            return 1;
    }
    return 0;
}

static int add_pull_consumer(const char *stream, const char *durable, int64_t ack_wait_ms) {
    jsConsumerConfig cc;
    jsConsumerConfig_Init(&cc);
    cc.Durable = durable;
    cc.AckPolicy = js_AckExplicit;
    if (ack_wait_ms > 0)
        cc.AckWait = ack_wait_ms * 1000000;
    jsConsumerInfo *ci = NULL;
    CHECK(js_AddConsumer(&ci, js, stream, &cc, NULL, errCode));
    jsConsumerInfo_Destroy(ci);
    return 0;
}

static int case_account_info(void) {
    jsAccountInfo *before = NULL, *after = NULL;
    jsStreamInfo *si = NULL;
    CHECK(js_GetAccountInfo(&before, js, NULL, errCode));
    if (add_stream("ACCT", "acct.>", &si) != 0)
        return 1;
    CHECK(js_GetAccountInfo(&after, js, NULL, errCode));
    EXPECT(after->Streams == before->Streams + 1, "streams %lld then %lld", (long long) before->Streams,
           (long long) after->Streams);
    jsAccountInfo_Destroy(before);
    jsAccountInfo_Destroy(after);
    jsStreamInfo_Destroy(si);
    return 0;
}

static int case_stream_add(void) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "CRUD";
    cfg.Subjects = (const char *[]) {"crud.>"};
    cfg.SubjectsLen = 1;
    cfg.MaxMsgs = 100;
    jsStreamInfo *si = NULL;
    CHECK(js_AddStream(&si, js, &cfg, NULL, errCode));
    EXPECT(strcmp(si->Config->Name, "CRUD") == 0 && si->Config->SubjectsLen == 1
               && strcmp(si->Config->Subjects[0], "crud.>") == 0 && si->Config->MaxMsgs == 100
               && si->State.Msgs == 0,
           "created: name %s, %d subjects, max_msgs %lld, messages %llu", si->Config->Name,
           si->Config->SubjectsLen, (long long) si->Config->MaxMsgs, (unsigned long long) si->State.Msgs);
    jsStreamInfo_Destroy(si);
    return 0;
}

static int case_stream_info(void) {
    if (publish("crud.a", "one", NULL) != 0 || publish("crud.a", "two", NULL) != 0)
        return 1;
    jsStreamInfo *si = NULL;
    CHECK(js_GetStreamInfo(&si, js, "CRUD", NULL, errCode));
    EXPECT(si->State.Msgs == 2 && si->State.FirstSeq == 1 && si->State.LastSeq == 2,
           "state: %llu messages, first %llu, last %llu", (unsigned long long) si->State.Msgs,
           (unsigned long long) si->State.FirstSeq, (unsigned long long) si->State.LastSeq);
    jsStreamInfo_Destroy(si);
    si = NULL;
    jsErrCode code = 0;
    natsStatus s = js_GetStreamInfo(&si, js, "NOPE", NULL, &code);
    EXPECT(s == NATS_NOT_FOUND && si == NULL, "info of a missing stream: %s, err_code %d, stream %p",
           natsStatus_GetText(s), (int) code, (void *) si);
    return 0;
}

static int case_stream_update(void) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "CRUD";
    cfg.Subjects = (const char *[]) {"crud.>"};
    cfg.SubjectsLen = 1;
    cfg.MaxMsgs = 50;
    jsStreamInfo *si = NULL;
    CHECK(js_UpdateStream(&si, js, &cfg, NULL, errCode));
    EXPECT(si->Config->MaxMsgs == 50 && si->State.Msgs == 2, "updated: max_msgs %lld, messages %llu",
           (long long) si->Config->MaxMsgs, (unsigned long long) si->State.Msgs);
    jsStreamInfo_Destroy(si);
    CHECK(js_GetStreamInfo(&si, js, "CRUD", NULL, errCode));
    EXPECT(si->Config->MaxMsgs == 50, "max_msgs read back: %lld", (long long) si->Config->MaxMsgs);
    jsStreamInfo_Destroy(si);
    return 0;
}

static int case_stream_multiple_subjects(void) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "MULTI";
    cfg.Subjects = (const char *[]) {"multi.a", "multi.b.>"};
    cfg.SubjectsLen = 2;
    jsStreamInfo *si = NULL;
    CHECK(js_AddStream(&si, js, &cfg, NULL, errCode));
    jsStreamInfo_Destroy(si);
    if (publish("multi.a", "a", NULL) != 0 || publish("multi.b.x", "b", NULL) != 0)
        return 1;
    cfg.Subjects = (const char *[]) {"multi.a", "multi.b.>", "multi.c"};
    cfg.SubjectsLen = 3;
    CHECK(js_UpdateStream(&si, js, &cfg, NULL, errCode));
    jsStreamInfo_Destroy(si);
    if (publish("multi.c", "c", NULL) != 0)
        return 1;
    CHECK(js_GetStreamInfo(&si, js, "MULTI", NULL, errCode));
    EXPECT(si->Config->SubjectsLen == 3 && si->State.Msgs == 3, "%d subjects, %llu messages",
           si->Config->SubjectsLen, (unsigned long long) si->State.Msgs);
    jsStreamInfo_Destroy(si);
    return 0;
}

static int case_stream_list(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("LISTED", "listed.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsStreamInfoList *infos = NULL;
    CHECK(js_Streams(&infos, js, NULL, errCode));
    int found = 0;
    for (int i = 0; i < infos->Count; i++) {
        const char *name = infos->List[i]->Config->Name;
        found += strcmp(name, "CRUD") == 0 || strcmp(name, "LISTED") == 0;
    }
    EXPECT(found == 2, "list: CRUD and LISTED among %d streams: %d found", infos->Count, found);
    jsStreamNamesList *names = NULL;
    CHECK(js_StreamNames(&names, js, NULL, errCode));
    EXPECT(names->Count == infos->Count, "names: %d, list: %d", names->Count, infos->Count);
    jsStreamNamesList_Destroy(names);
    jsStreamInfoList_Destroy(infos);
    return 0;
}

static int case_stream_delete(void) {
    CHECK(js_DeleteStream(js, "CRUD", NULL, errCode));
    jsStreamInfo *si = NULL;
    natsStatus s = js_GetStreamInfo(&si, js, "CRUD", NULL, NULL);
    EXPECT(s == NATS_NOT_FOUND, "info after delete: %s", natsStatus_GetText(s));
    jsErrCode code = 0;
    s = js_DeleteStream(js, "CRUD", NULL, &code);
    EXPECT(s == NATS_NOT_FOUND, "second delete: %s, err_code %d", natsStatus_GetText(s), (int) code);
    return 0;
}

static int case_publish_puback(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("PUB", "pub.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsPubAck *a = NULL, *b = NULL;
    CHECK(js_Publish(&a, js, "pub.a", "1", 1, NULL, errCode));
    CHECK(js_Publish(&b, js, "pub.b", "2", 1, NULL, errCode));
    EXPECT(strcmp(a->Stream, "PUB") == 0 && a->Sequence == 1 && !a->Duplicate && b->Sequence == 2,
           "acks: %s %llu %d, then %llu", a->Stream, (unsigned long long) a->Sequence, a->Duplicate,
           (unsigned long long) b->Sequence);
    jsPubAck_Destroy(a);
    jsPubAck_Destroy(b);
    jsPubAck *none = NULL;
    natsStatus s = js_Publish(&none, js, "nostream.here", "x", 1, NULL, NULL);
    EXPECT(s == NATS_NO_RESPONDERS, "publish without a stream: %s", natsStatus_GetText(s));
    return 0;
}

static int publish_with_id(const char *body, const char *id, jsPubAck **ack) {
    jsPubOptions opts;
    jsPubOptions_Init(&opts);
    opts.MsgId = id;
    CHECK(js_Publish(ack, js, "dedup.a", body, (int) strlen(body), &opts, errCode));
    return 0;
}

static int case_publish_msg_id_duplicate(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("DEDUP", "dedup.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsPubAck *first = NULL, *again = NULL, *other = NULL;
    if (publish_with_id("x", "id-1", &first) || publish_with_id("x", "id-1", &again)
        || publish_with_id("y", "id-2", &other))
        return 1;
    EXPECT(first->Sequence == 1 && !first->Duplicate && again->Sequence == 1 && again->Duplicate
               && other->Sequence == 2 && !other->Duplicate,
           "acks: %llu/%d %llu/%d %llu/%d", (unsigned long long) first->Sequence, first->Duplicate,
           (unsigned long long) again->Sequence, again->Duplicate, (unsigned long long) other->Sequence,
           other->Duplicate);
    CHECK(js_GetStreamInfo(&si, js, "DEDUP", NULL, errCode));
    EXPECT(si->State.Msgs == 2, "stored: %llu", (unsigned long long) si->State.Msgs);
    jsStreamInfo_Destroy(si);
    jsPubAck_Destroy(first);
    jsPubAck_Destroy(again);
    jsPubAck_Destroy(other);
    return 0;
}

static int case_get_msg_by_seq(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("GET", "get.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    natsMsg *out = NULL;
    CHECK(natsMsg_Create(&out, "get.a", NULL, "first", 5));
    CHECK(natsMsgHeader_Set(out, "X-Case", "get"));
    jsPubAck *ack = NULL;
    CHECK(js_PublishMsg(&ack, js, out, NULL, errCode));
    jsPubAck_Destroy(ack);
    natsMsg_Destroy(out);
    if (publish("get.b", "second", NULL) != 0)
        return 1;
    natsMsg *m = NULL;
    CHECK(js_GetMsg(&m, js, "GET", 1, NULL, errCode));
    const char *header = NULL;
    CHECK(natsMsgHeader_Get(m, "X-Case", &header));
    EXPECT(strcmp(natsMsg_GetSubject(m), "get.a") == 0 && natsMsg_GetSequence(m) == 1
               && is(natsMsg_GetData(m), natsMsg_GetDataLength(m), "first") && strcmp(header, "get") == 0,
           "message 1: %s seq %llu header %s", natsMsg_GetSubject(m),
           (unsigned long long) natsMsg_GetSequence(m), header);
    natsMsg_Destroy(m);
    m = NULL;
    jsErrCode code = 0;
    natsStatus s = js_GetMsg(&m, js, "GET", 9, NULL, &code);
    EXPECT(s == NATS_NOT_FOUND && code == JSNoMessageFoundErr, "missing sequence: %s, err_code %d",
           natsStatus_GetText(s), (int) code);
    return 0;
}

static int case_get_last_msg_by_subject(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("LAST", "last.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    if (publish("last.a", "a1", NULL) || publish("last.b", "b1", NULL) || publish("last.a", "a2", NULL))
        return 1;
    natsMsg *m = NULL;
    CHECK(js_GetLastMsg(&m, js, "LAST", "last.a", NULL, errCode));
    EXPECT(strcmp(natsMsg_GetSubject(m), "last.a") == 0 && natsMsg_GetSequence(m) == 3
               && is(natsMsg_GetData(m), natsMsg_GetDataLength(m), "a2"),
           "last of last.a: %s seq %llu", natsMsg_GetSubject(m), (unsigned long long) natsMsg_GetSequence(m));
    natsMsg_Destroy(m);
    return 0;
}

static int case_direct_get(void) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "DIRECT";
    cfg.Subjects = (const char *[]) {"direct.>"};
    cfg.SubjectsLen = 1;
    cfg.AllowDirect = true;
    jsStreamInfo *si = NULL;
    CHECK(js_AddStream(&si, js, &cfg, NULL, errCode));
    jsStreamInfo_Destroy(si);
    if (publish("direct.a", "d1", NULL) || publish("direct.b", "d2", NULL) || publish("direct.a", "d3", NULL))
        return 1;
    jsDirectGetMsgOptions by;
    jsDirectGetMsgOptions_Init(&by);
    by.Sequence = 2;
    natsMsg *m = NULL;
    CHECK(js_DirectGetMsg(&m, js, "DIRECT", NULL, &by));
    EXPECT(strcmp(natsMsg_GetSubject(m), "direct.b") == 0 && natsMsg_GetSequence(m) == 2
               && is(natsMsg_GetData(m), natsMsg_GetDataLength(m), "d2"),
           "by sequence 2: %s seq %llu", natsMsg_GetSubject(m), (unsigned long long) natsMsg_GetSequence(m));
    natsMsg_Destroy(m);
    jsDirectGetMsgOptions_Init(&by);
    by.LastBySubject = "direct.a";
    CHECK(js_DirectGetMsg(&m, js, "DIRECT", NULL, &by));
    EXPECT(natsMsg_GetSequence(m) == 3 && is(natsMsg_GetData(m), natsMsg_GetDataLength(m), "d3"),
           "last of direct.a: seq %llu", (unsigned long long) natsMsg_GetSequence(m));
    natsMsg_Destroy(m);
    return 0;
}

static int case_purge(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("PURGE", "purge.>", &si) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    if (publish_all("purge.a", 3, "") || publish("purge.b", "4", NULL))
        return 1;
    jsOptions opts;
    jsOptions_Init(&opts);
    opts.Stream.Purge.Subject = "purge.a";
    opts.Stream.Purge.Keep = 1;
    CHECK(js_PurgeStream(js, "PURGE", &opts, errCode));
    CHECK(js_GetStreamInfo(&si, js, "PURGE", NULL, errCode));
    EXPECT(si->State.Msgs == 2 && si->State.FirstSeq == 3, "after filtered purge: %llu messages, first %llu",
           (unsigned long long) si->State.Msgs, (unsigned long long) si->State.FirstSeq);
    jsStreamInfo_Destroy(si);
    CHECK(js_PurgeStream(js, "PURGE", NULL, errCode));
    CHECK(js_GetStreamInfo(&si, js, "PURGE", NULL, errCode));
    EXPECT(si->State.Msgs == 0 && si->State.FirstSeq == 5 && si->State.LastSeq == 4,
           "after purge: %llu messages, first %llu, last %llu", (unsigned long long) si->State.Msgs,
           (unsigned long long) si->State.FirstSeq, (unsigned long long) si->State.LastSeq);
    jsStreamInfo_Destroy(si);
    return 0;
}

static int case_pull_fetch_ack(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("PULL", "pull.>", &si) != 0 || publish_all("pull.x", 5, "m") != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    natsSubscription *sub = NULL;
    CHECK(js_PullSubscribe(&sub, js, "pull.>", "puller", NULL, NULL, errCode));
    int seen = 0;
    while (seen < 5) {
        natsMsgList list = {0};
        CHECK(natsSubscription_Fetch(&list, sub, 3, WAIT_MS, errCode));
        for (int i = 0; i < list.Count; i++) {
            jsMsgMetaData *meta = NULL;
            CHECK(natsMsg_GetMetaData(&meta, list.Msgs[i]));
            char expected[16];
            snprintf(expected, sizeof expected, "m%d", seen + 1);
            EXPECT(meta->Sequence.Stream == (uint64_t) seen + 1
                       && is(natsMsg_GetData(list.Msgs[i]), natsMsg_GetDataLength(list.Msgs[i]), expected),
                   "message %d: stream sequence %llu", seen + 1, (unsigned long long) meta->Sequence.Stream);
            jsMsgMetaData_Destroy(meta);
            CHECK(natsMsg_AckSync(list.Msgs[i], NULL, errCode));
            seen++;
        }
        natsMsgList_Destroy(&list);
    }
    jsConsumerInfo *ci = NULL;
    CHECK(natsSubscription_GetConsumerInfo(&ci, sub, NULL, errCode));
    EXPECT(ci->NumAckPending == 0 && ci->NumPending == 0 && ci->AckFloor.Stream == 5,
           "after acks: ack pending %lld, pending %llu, ack floor %llu", (long long) ci->NumAckPending,
           (unsigned long long) ci->NumPending, (unsigned long long) ci->AckFloor.Stream);
    jsConsumerInfo_Destroy(ci);
    natsSubscription_Destroy(sub);
    return 0;
}

static int case_pull_nak_redelivery(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("NAK", "nak.>", &si) != 0 || publish_all("nak.x", 2, "n") != 0
        || add_pull_consumer("NAK", "naker", 30000) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = "NAK";
    so.Consumer = "naker";
    natsSubscription *sub = NULL;
    CHECK(js_PullSubscribe(&sub, js, "nak.>", "naker", NULL, &so, errCode));
    natsMsgList first = {0};
    CHECK(natsSubscription_Fetch(&first, sub, 1, WAIT_MS, errCode));
    EXPECT(first.Count == 1 && is(natsMsg_GetData(first.Msgs[0]), natsMsg_GetDataLength(first.Msgs[0]), "n1"),
           "first fetch: %d messages", first.Count);
    CHECK(natsMsg_Nak(first.Msgs[0], NULL));
    natsMsgList_Destroy(&first);
    /* n1 again (delivered twice) and n2, in either order: the server may serve the fetch first */
    uint64_t deliveries[3] = {0};
    int seen = 0;
    while (seen < 2) {
        natsMsgList list = {0};
        CHECK(natsSubscription_Fetch(&list, sub, 2 - seen, WAIT_MS, errCode));
        for (int i = 0; i < list.Count; i++, seen++) {
            jsMsgMetaData *meta = NULL;
            CHECK(natsMsg_GetMetaData(&meta, list.Msgs[i]));
            EXPECT(meta->Sequence.Stream >= 1 && meta->Sequence.Stream <= 2, "stream sequence %llu",
                   (unsigned long long) meta->Sequence.Stream);
            deliveries[meta->Sequence.Stream] = meta->NumDelivered;
            jsMsgMetaData_Destroy(meta);
            CHECK(natsMsg_AckSync(list.Msgs[i], NULL, errCode));
        }
        natsMsgList_Destroy(&list);
    }
    EXPECT(deliveries[1] == 2 && deliveries[2] == 1, "after nak: n1 delivered %llu times, n2 %llu times",
           (unsigned long long) deliveries[1], (unsigned long long) deliveries[2]);
    jsConsumerInfo *ci = NULL;
    CHECK(js_GetConsumerInfo(&ci, js, "NAK", "naker", NULL, errCode));
    EXPECT(ci->NumRedelivered == 0 && ci->AckFloor.Stream == 2 && ci->Delivered.Consumer == 3,
           "consumer: redelivered %lld, ack floor %llu, delivered %llu", (long long) ci->NumRedelivered,
           (unsigned long long) ci->AckFloor.Stream, (unsigned long long) ci->Delivered.Consumer);
    jsConsumerInfo_Destroy(ci);
    natsSubscription_Destroy(sub);
    return 0;
}

/* What the push consumer's callback saw: bodies in order, under a lock, with a signal. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int count;
    int ack_failures;
    char bodies[8][16];
} received;

static void on_push(natsConnection *conn, natsSubscription *sub, natsMsg *msg, void *closure) {
    (void) conn;
    (void) sub;
    received *r = closure;
    natsStatus acked = natsMsg_AckSync(msg, NULL, NULL); /* before counting: the case then reads the ack floor */
    pthread_mutex_lock(&r->lock);
    if (acked != NATS_OK)
        r->ack_failures++;
    if (r->count < 8) {
        snprintf(r->bodies[r->count], sizeof r->bodies[0], "%.*s", natsMsg_GetDataLength(msg), natsMsg_GetData(msg));
        r->count++;
    }
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    natsMsg_Destroy(msg);
}

static int await_count(received *r, int target) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_MS / 1000;
    pthread_mutex_lock(&r->lock);
    while (r->count < target && pthread_cond_timedwait(&r->changed, &r->lock, &deadline) != ETIMEDOUT) {
    }
    int count = r->count;
    pthread_mutex_unlock(&r->lock);
    return count;
}

static int case_push_consumer(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("PUSH", "push.>", &si) != 0 || publish_all("push.x", 3, "p") != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    static received r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, {{0}}};
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Config.Durable = "pusher";
    so.Config.AckPolicy = js_AckExplicit;
    so.ManualAck = true;
    natsSubscription *sub = NULL;
    CHECK(js_Subscribe(&sub, js, "push.>", on_push, &r, NULL, &so, errCode));
    int count = await_count(&r, 3);
    EXPECT(count == 3 && strcmp(r.bodies[0], "p1") == 0 && strcmp(r.bodies[1], "p2") == 0
               && strcmp(r.bodies[2], "p3") == 0 && r.ack_failures == 0,
           "pushed %d: %s %s %s, %d acks failed", count, r.bodies[0], r.bodies[1], r.bodies[2], r.ack_failures);
    jsConsumerInfo *ci = NULL;
    CHECK(js_GetConsumerInfo(&ci, js, "PUSH", "pusher", NULL, errCode));
    EXPECT(ci->Config->DeliverSubject != NULL && ci->Delivered.Stream == 3 && ci->AckFloor.Stream == 3
               && ci->PushBound,
           "push consumer: deliver subject %s, delivered %llu, ack floor %llu, push bound %d",
           ci->Config->DeliverSubject, (unsigned long long) ci->Delivered.Stream,
           (unsigned long long) ci->AckFloor.Stream, ci->PushBound);
    jsConsumerInfo_Destroy(ci);
    natsSubscription_Unsubscribe(sub);
    natsSubscription_Destroy(sub);
    return 0;
}

static int case_ordered_consumer(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("ORDERED", "ordered.>", &si) != 0 || publish_all("ordered.a", 2, "o") != 0
        || publish("ordered.b", "o3", NULL) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Ordered = true;
    natsSubscription *sub = NULL;
    CHECK(js_SubscribeSync(&sub, js, "ordered.>", NULL, &so, errCode));
    for (int i = 1; i <= 3; i++) {
        natsMsg *m = NULL;
        CHECK(natsSubscription_NextMsg(&m, sub, WAIT_MS));
        char expected[16];
        snprintf(expected, sizeof expected, "o%d", i);
        EXPECT(is(natsMsg_GetData(m), natsMsg_GetDataLength(m), expected), "ordered message %d: %.*s", i,
               natsMsg_GetDataLength(m), natsMsg_GetData(m));
        natsMsg_Destroy(m);
    }
    natsSubscription_Unsubscribe(sub);
    natsSubscription_Destroy(sub);
    return 0;
}

static int case_durable_info_after_acks(void) {
    jsStreamInfo *si = NULL;
    if (add_stream("FLOOR", "floor.>", &si) != 0 || publish_all("floor.x", 5, "f") != 0
        || add_pull_consumer("FLOOR", "floor", 0) != 0)
        return 1;
    jsStreamInfo_Destroy(si);
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = "FLOOR";
    so.Consumer = "floor";
    natsSubscription *sub = NULL;
    CHECK(js_PullSubscribe(&sub, js, "floor.>", "floor", NULL, &so, errCode));
    natsMsgList list = {0};
    CHECK(natsSubscription_Fetch(&list, sub, 3, WAIT_MS, errCode));
    EXPECT(list.Count == 3, "fetched %d of 3", list.Count);
    CHECK(natsMsg_AckSync(list.Msgs[0], NULL, errCode));
    CHECK(natsMsg_AckSync(list.Msgs[1], NULL, errCode));
    natsMsgList_Destroy(&list);
    jsConsumerInfo *ci = NULL;
    CHECK(js_GetConsumerInfo(&ci, js, "FLOOR", "floor", NULL, errCode));
    EXPECT(strcmp(ci->Name, "floor") == 0 && strcmp(ci->Config->Durable, "floor") == 0
               && ci->Delivered.Stream == 3 && ci->AckFloor.Stream == 2 && ci->AckFloor.Consumer == 2
               && ci->NumAckPending == 1 && ci->NumPending == 2,
           "consumer %s: delivered %llu, ack floor %llu/%llu, ack pending %lld, pending %llu", ci->Name,
           (unsigned long long) ci->Delivered.Stream, (unsigned long long) ci->AckFloor.Stream,
           (unsigned long long) ci->AckFloor.Consumer, (long long) ci->NumAckPending,
           (unsigned long long) ci->NumPending);
    jsConsumerInfo_Destroy(ci);
    jsConsumerInfoList *consumers = NULL;
    CHECK(js_Consumers(&consumers, js, "FLOOR", NULL, errCode));
    EXPECT(consumers->Count == 1 && strcmp(consumers->List[0]->Name, "floor") == 0, "consumers: %d",
           consumers->Count);
    jsConsumerInfoList_Destroy(consumers);
    natsSubscription_Destroy(sub);
    return 0;
}

typedef struct {
    const char *name;
    int (*run)(void);
} contract_case;

static const contract_case CASES[] = {
    {"account_info", case_account_info},
    {"stream_add", case_stream_add},
    {"stream_info", case_stream_info},
    {"stream_update", case_stream_update},
    {"stream_multiple_subjects", case_stream_multiple_subjects},
    {"stream_list", case_stream_list},
    {"stream_delete", case_stream_delete},
    {"publish_puback", case_publish_puback},
    {"publish_msg_id_duplicate", case_publish_msg_id_duplicate},
    {"get_msg_by_seq", case_get_msg_by_seq},
    {"get_last_msg_by_subject", case_get_last_msg_by_subject},
    {"direct_get", case_direct_get},
    {"purge", case_purge},
    {"pull_fetch_ack", case_pull_fetch_ack},
    {"pull_nak_redelivery", case_pull_nak_redelivery},
    {"push_consumer", case_push_consumer},
    {"ordered_consumer", case_ordered_consumer},
    {"durable_info_after_acks", case_durable_info_after_acks},
    {"kv_create_bucket", case_kv_create_bucket},
    {"kv_put_get", case_kv_put_get},
    {"kv_create_exists", case_kv_create_exists},
    {"kv_update_revision", case_kv_update_revision},
    {"kv_delete", case_kv_delete},
    {"kv_purge", case_kv_purge},
    {"kv_history", case_kv_history},
    {"kv_keys", case_kv_keys},
    {"kv_watch", case_kv_watch},
};

static int selected(const char *name, int argc, char **argv) {
    if (argc <= 2)
        return 1;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s nats://host:port [case ...]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    natsOptions *opts = NULL;
    jsOptions jsOpts;
    if (natsOptions_Create(&opts) != NATS_OK || natsOptions_SetURL(opts, argv[1]) != NATS_OK
        || natsOptions_SetTimeout(opts, WAIT_MS) != NATS_OK || natsOptions_SetAllowReconnect(opts, false) != NATS_OK
        || natsConnection_Connect(&nc, opts) != NATS_OK || jsOptions_Init(&jsOpts) != NATS_OK) {
        printf("fail setup %s\n", nats_GetLastError(NULL));
        return 1;
    }
    jsOpts.Wait = WAIT_MS;
    if (natsConnection_JetStream(&js, nc, &jsOpts) != NATS_OK) {
        printf("fail setup %s\n", nats_GetLastError(NULL));
        return 1;
    }
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        if (!selected(CASES[i].name, argc, argv))
            continue;
        failure[0] = '\0';
        if (CASES[i].run() == 0)
            printf("%s ok\n", CASES[i].name);
        else
            printf("%s fail %s\n", CASES[i].name, failure);
    }
    printf("done\n");
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    natsOptions_Destroy(opts);
    nats_Close();
    return 0;
}
