/*
 * clienttest: runs the NATS C client (Debian's libnats-dev) against a NATS server and checks what
 * the client sees, one case at a time:
 *
 *     clienttest nats://127.0.0.1:4333 pubsub wildcards ...
 *
 * Prints "PASS <case>" or "FAIL <case>: <reason>" for each case and exits 1 if any failed. Every
 * wait is bounded (WAIT_MS). The cases expect nats-server's behaviour, so that the program passes
 * against nats-server itself; CClientTest runs it against ringbus-server.
 *
 * The reconnect case prints "RESTART <url>" and then waits for the client to reconnect: whoever
 * runs the program restarts the server on the same port when it reads that line.
 *
 * The slow-consumer-server case expects the server to drop a subscriber that does not read once
 * its pending output exceeds a limit well below SLOW_PUBLISH_BYTES.
 *
 * Connections made with connect_to use TLS as the CLIENTTEST_TLS_* variables say (tls.c), so that
 * those cases run over TLS; the connect-refused and tls-reload cases are for TLS.
 *
 * Build: gcc -std=c11 -Wall -Wextra -Werror -o clienttest clienttest.c tls.c -lnats -lpthread
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <nats/nats.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clienttest.h"

/* What slow-consumer-server publishes while its raw subscriber reads nothing. */
#define SLOW_PUBLISH_BYTES (8 * 1024 * 1024)

const char *url;
static char failure[512];

int fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(failure, sizeof failure, format, args);
    va_end(args);
    return 1;
}

void counter_init(counter *c) {
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    c->count = 0;
    c->last_error = NATS_OK;
}

void counter_add(counter *c, natsStatus err) {
    pthread_mutex_lock(&c->lock);
    c->count++;
    if (err != NATS_OK)
        c->last_error = err;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

int counter_await(counter *c, int target) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_MS / 1000;
    pthread_mutex_lock(&c->lock);
    while (c->count < target) {
        if (pthread_cond_timedwait(&c->changed, &c->lock, &deadline) == ETIMEDOUT)
            break;
    }
    int count = c->count;
    pthread_mutex_unlock(&c->lock);
    return count;
}

int counter_get(counter *c) {
    pthread_mutex_lock(&c->lock);
    int count = c->count;
    pthread_mutex_unlock(&c->lock);
    return count;
}

static void on_error(natsConnection *nc, natsSubscription *sub, natsStatus err, void *closure) {
    (void) nc;
    (void) sub;
    counter_add((counter *) closure, err);
}

void on_event(natsConnection *nc, void *closure) {
    (void) nc;
    counter_add((counter *) closure, NATS_OK);
}

static void on_count(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    (void) nc;
    (void) sub;
    natsMsg_Destroy(msg);
    counter_add((counter *) closure, NATS_OK);
}

natsStatus connect_to(natsConnection **nc, const char *name, counter *errors) {
    natsOptions *opts = NULL;
    natsStatus s = natsOptions_Create(&opts);
    if (s == NATS_OK) s = natsOptions_SetURL(opts, url);
    if (s == NATS_OK) s = natsOptions_SetName(opts, name);
    if (s == NATS_OK) s = natsOptions_SetTimeout(opts, WAIT_MS);
    if (s == NATS_OK) s = natsOptions_SetAllowReconnect(opts, false);
    if (s == NATS_OK) s = tls_apply(opts);
    if (s == NATS_OK && errors != NULL) s = natsOptions_SetErrorHandler(opts, on_error, errors);
    if (s == NATS_OK) s = natsConnection_Connect(nc, opts);
    natsOptions_Destroy(opts);
    return s;
}

int expect_msg(natsSubscription *sub, const char *subject, const char *payload) {
    natsMsg *msg = NULL;
    natsStatus s = natsSubscription_NextMsg(&msg, sub, WAIT_MS);
    if (s != NATS_OK)
        return fail("no message %s on %s: %s", payload, subject, natsStatus_GetText(s));
    int ok = strcmp(natsMsg_GetSubject(msg), subject) == 0 && natsMsg_GetDataLength(msg) == (int) strlen(payload)
             && memcmp(natsMsg_GetData(msg), payload, strlen(payload)) == 0;
    if (!ok)
        fail("want %s on %s, got %.*s on %s", payload, subject, natsMsg_GetDataLength(msg), natsMsg_GetData(msg),
             natsMsg_GetSubject(msg));
    natsMsg_Destroy(msg);
    return ok ? 0 : 1;
}

/* Flushes, so that anything the server was going to deliver has arrived, then expects none. */
static int expect_nothing(natsConnection *nc, natsSubscription *sub) {
    CHECK(natsConnection_FlushTimeout(nc, WAIT_MS));
    int msgs = 0, bytes = 0;
    CHECK(natsSubscription_GetPending(sub, &msgs, &bytes));
    if (msgs != 0) {
        natsMsg *msg = NULL;
        natsSubscription_NextMsg(&msg, sub, 0);
        fail("unexpected message on %s", msg ? natsMsg_GetSubject(msg) : "?");
        natsMsg_Destroy(msg);
        return 1;
    }
    return 0;
}

static int pubsub(void) {
    natsConnection *sub_nc = NULL, *pub_nc = NULL;
    natsSubscription *sub = NULL;
    char payload[32];
    CHECK(connect_to(&sub_nc, "c-sub", NULL));
    CHECK(connect_to(&pub_nc, "c-pub", NULL));
    CHECK(natsConnection_SubscribeSync(&sub, sub_nc, "c.pubsub"));
    CHECK(natsConnection_FlushTimeout(sub_nc, WAIT_MS));
    for (int i = 0; i < 100; i++) {
        snprintf(payload, sizeof payload, "m%d", i);
        CHECK(natsConnection_PublishString(pub_nc, "c.pubsub", payload));
    }
    char binary[512]; /* every byte value, CR and LF included */
    for (int i = 0; i < 512; i++)
        binary[i] = (char) i;
    CHECK(natsConnection_Publish(pub_nc, "c.pubsub", binary, sizeof binary));
    int rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++) {
        snprintf(payload, sizeof payload, "m%d", i);
        rc = expect_msg(sub, "c.pubsub", payload);
    }
    if (rc == 0) {
        natsMsg *msg = NULL;
        CHECK(natsSubscription_NextMsg(&msg, sub, WAIT_MS));
        if (natsMsg_GetDataLength(msg) != 512 || memcmp(natsMsg_GetData(msg), binary, 512) != 0)
            rc = fail("binary payload changed: %d bytes back", natsMsg_GetDataLength(msg));
        natsMsg_Destroy(msg);
    }
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(pub_nc);
    natsConnection_Destroy(sub_nc);
    return rc;
}

static int wildcards(void) {
    natsConnection *nc = NULL;
    natsSubscription *star = NULL, *tail = NULL;
    CHECK(connect_to(&nc, "c-wildcards", NULL));
    CHECK(natsConnection_SubscribeSync(&star, nc, "c.wild.*.created"));
    CHECK(natsConnection_SubscribeSync(&tail, nc, "c.wild.>"));
    CHECK(natsConnection_FlushTimeout(nc, WAIT_MS));
    const char *subjects[] = {"c.wild.eu.created", "c.wild.eu.created.late", "c.wild.us.deleted", "c.other"};
    for (int i = 0; i < 4; i++)
        CHECK(natsConnection_PublishString(nc, subjects[i], subjects[i]));
    int rc = expect_msg(star, "c.wild.eu.created", "c.wild.eu.created");
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = expect_msg(tail, subjects[i], subjects[i]);
    if (rc == 0) rc = expect_nothing(nc, star);
    if (rc == 0) rc = expect_nothing(nc, tail);
    natsSubscription_Destroy(star);
    natsSubscription_Destroy(tail);
    natsConnection_Destroy(nc);
    return rc;
}

#define MEMBERS 3
#define QUEUE_MESSAGES 300

/* One queue-group member's count, and the group's. */
typedef struct {
    counter own;
    counter *group;
} member;

static void on_member(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    member *m = closure;
    on_count(nc, sub, msg, &m->own);
    counter_add(m->group, NATS_OK);
}

static int queue_groups(void) {
    natsConnection *conns[MEMBERS] = {0}, *pub = NULL;
    natsSubscription *subs[MEMBERS] = {0}, *plain = NULL;
    static member members[MEMBERS]; /* static, as the counters below */
    /* Static: nats.c may call back (errors, close) on its own thread after the case returned. */
    static counter group;
    counter_init(&group);
    char name[32];
    for (int i = 0; i < MEMBERS; i++) {
        counter_init(&members[i].own);
        members[i].group = &group;
        snprintf(name, sizeof name, "c-queue-%d", i);
        CHECK(connect_to(&conns[i], name, NULL));
        CHECK(natsConnection_QueueSubscribe(&subs[i], conns[i], "c.queue", "workers", on_member, &members[i]));
        CHECK(natsConnection_FlushTimeout(conns[i], WAIT_MS));
    }
    CHECK(natsConnection_SubscribeSync(&plain, conns[0], "c.queue")); /* not in the group: gets all */
    CHECK(natsConnection_FlushTimeout(conns[0], WAIT_MS));
    CHECK(connect_to(&pub, "c-queue-pub", NULL));
    for (int i = 0; i < QUEUE_MESSAGES; i++)
        CHECK(natsConnection_PublishString(pub, "c.queue", "job"));
    int rc = 0;
    for (int i = 0; i < QUEUE_MESSAGES && rc == 0; i++)
        rc = expect_msg(plain, "c.queue", "job");
    if (rc == 0 && counter_await(&group, QUEUE_MESSAGES) < QUEUE_MESSAGES)
        rc = fail("group got %d of %d messages", counter_get(&group), QUEUE_MESSAGES);
    for (int i = 0; i < MEMBERS && rc == 0; i++)
        CHECK(natsConnection_FlushTimeout(conns[i], WAIT_MS)); /* a duplicate would be here by now */
    if (rc == 0 && counter_get(&group) != QUEUE_MESSAGES)
        rc = fail("group got %d messages, want exactly %d", counter_get(&group), QUEUE_MESSAGES);
    for (int i = 0; i < MEMBERS && rc == 0; i++)
        if (counter_get(&members[i].own) == 0)
            rc = fail("member %d got nothing", i);
    natsSubscription_Destroy(plain);
    for (int i = 0; i < MEMBERS; i++) {
        natsSubscription_Destroy(subs[i]);
        natsConnection_Destroy(conns[i]);
    }
    natsConnection_Destroy(pub);
    return rc;
}

static void upper_responder(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    (void) sub;
    (void) closure;
    char upper[64];
    int n = natsMsg_GetDataLength(msg) < 63 ? natsMsg_GetDataLength(msg) : 63;
    for (int i = 0; i < n; i++)
        upper[i] = (char) (natsMsg_GetData(msg)[i] >= 'a' && natsMsg_GetData(msg)[i] <= 'z'
                               ? natsMsg_GetData(msg)[i] - 32 : natsMsg_GetData(msg)[i]);
    natsConnection_Publish(nc, natsMsg_GetReply(msg), upper, n);
    natsMsg_Destroy(msg);
}

static int request_reply(void) {
    natsConnection *responder = NULL, *requester = NULL;
    natsSubscription *sub = NULL;
    CHECK(connect_to(&responder, "c-responder", NULL));
    CHECK(natsConnection_Subscribe(&sub, responder, "c.svc.upper", upper_responder, NULL));
    CHECK(natsConnection_FlushTimeout(responder, WAIT_MS));
    CHECK(connect_to(&requester, "c-requester", NULL));
    const char *words[] = {"ringbus", "nats", "c"};
    const char *uppers[] = {"RINGBUS", "NATS", "C"};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++) {
        natsMsg *reply = NULL;
        CHECK(natsConnection_RequestString(&reply, requester, "c.svc.upper", words[i], WAIT_MS));
        if (natsMsg_GetDataLength(reply) != (int) strlen(uppers[i])
            || memcmp(natsMsg_GetData(reply), uppers[i], strlen(uppers[i])) != 0)
            rc = fail("reply to %s was %.*s", words[i], natsMsg_GetDataLength(reply), natsMsg_GetData(reply));
        natsMsg_Destroy(reply);
    }
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(requester);
    natsConnection_Destroy(responder);
    return rc;
}

static int no_responders(void) {
    natsConnection *nc = NULL;
    natsMsg *reply = NULL;
    CHECK(connect_to(&nc, "c-no-responders", NULL));
    natsStatus s = natsConnection_RequestString(&reply, nc, "c.nobody.home", "?", WAIT_MS);
    natsMsg_Destroy(reply);
    natsConnection_Destroy(nc);
    if (s != NATS_NO_RESPONDERS)
        return fail("want NATS_NO_RESPONDERS at once, got %s", natsStatus_GetText(s));
    return 0;
}

static int headers(void) {
    natsConnection *nc = NULL;
    natsSubscription *sub = NULL;
    natsMsg *out = NULL, *in = NULL;
    CHECK(connect_to(&nc, "c-headers", NULL));
    CHECK(natsConnection_SubscribeSync(&sub, nc, "c.headers"));
    CHECK(natsConnection_FlushTimeout(nc, WAIT_MS));
    CHECK(natsMsg_Create(&out, "c.headers", NULL, "with headers", 12));
    CHECK(natsMsgHeader_Set(out, "Trace-Id", "abc-123"));
    CHECK(natsMsgHeader_Add(out, "Multi", "one"));
    CHECK(natsMsgHeader_Add(out, "Multi", "two"));
    CHECK(natsConnection_PublishMsg(nc, out));
    natsMsg_Destroy(out);
    CHECK(natsSubscription_NextMsg(&in, sub, WAIT_MS));
    const char *trace = NULL;
    const char **multi = NULL;
    int count = 0;
    int rc = 0;
    if (natsMsgHeader_Get(in, "Trace-Id", &trace) != NATS_OK || strcmp(trace, "abc-123") != 0)
        rc = fail("Trace-Id header: %s", trace ? trace : "(missing)");
    else if (natsMsgHeader_Values(in, "Multi", &multi, &count) != NATS_OK || count != 2
             || strcmp(multi[0], "one") != 0 || strcmp(multi[1], "two") != 0)
        rc = fail("Multi header has %d values", count);
    else if (natsMsg_GetDataLength(in) != 12 || memcmp(natsMsg_GetData(in), "with headers", 12) != 0)
        rc = fail("payload %.*s", natsMsg_GetDataLength(in), natsMsg_GetData(in));
    free((void *) multi);
    natsMsg_Destroy(in);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(nc);
    return rc;
}

#define DRAIN_MESSAGES 2000

static void slow_count(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    struct timespec work = {0, 50 * 1000}; /* a handler with work to do: messages still queued at Drain */
    nanosleep(&work, NULL);
    on_count(nc, sub, msg, closure);
}

static int drain(void) {
    natsOptions *opts = NULL;
    natsConnection *sub_nc = NULL, *pub = NULL;
    natsSubscription *sub = NULL;
    /* Static: nats.c may call back (errors, close) on its own thread after the case returned. */
    static counter received, closed;
    counter_init(&received);
    counter_init(&closed);
    CHECK(natsOptions_Create(&opts));
    CHECK(natsOptions_SetURL(opts, url));
    CHECK(natsOptions_SetAllowReconnect(opts, false));
    CHECK(natsOptions_SetClosedCB(opts, on_event, &closed));
    CHECK(natsConnection_Connect(&sub_nc, opts));
    natsOptions_Destroy(opts);
    CHECK(natsConnection_Subscribe(&sub, sub_nc, "c.drain", slow_count, &received));
    CHECK(natsConnection_FlushTimeout(sub_nc, WAIT_MS));
    CHECK(connect_to(&pub, "c-drain-pub", NULL));
    for (int i = 0; i < DRAIN_MESSAGES; i++)
        CHECK(natsConnection_PublishString(pub, "c.drain", "x"));
    CHECK(natsConnection_FlushTimeout(pub, WAIT_MS)); /* all on their way before Drain's UNSUB */
    CHECK(natsConnection_DrainTimeout(sub_nc, WAIT_MS));
    int rc = 0;
    if (counter_await(&closed, 1) < 1)
        rc = fail("connection not closed after drain; %d of %d handled", counter_get(&received), DRAIN_MESSAGES);
    else if (counter_get(&received) != DRAIN_MESSAGES)
        rc = fail("drain handled %d of %d messages", counter_get(&received), DRAIN_MESSAGES);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(sub_nc);
    natsConnection_Destroy(pub);
    return rc;
}

static int reconnect(void) {
    natsOptions *opts = NULL;
    natsConnection *nc = NULL;
    natsSubscription *sub = NULL;
    /* Static: nats.c calls the disconnected callback again, on its own thread, for the close at
       the end, after this function has returned. */
    static counter disconnected, reconnected;
    counter_init(&disconnected);
    counter_init(&reconnected);
    CHECK(natsOptions_Create(&opts));
    CHECK(natsOptions_SetURL(opts, url));
    CHECK(natsOptions_SetMaxReconnect(opts, -1));
    CHECK(natsOptions_SetReconnectWait(opts, 100));
    CHECK(natsOptions_SetDisconnectedCB(opts, on_event, &disconnected));
    CHECK(natsOptions_SetReconnectedCB(opts, on_event, &reconnected));
    CHECK(natsConnection_Connect(&nc, opts));
    natsOptions_Destroy(opts);
    CHECK(natsConnection_SubscribeSync(&sub, nc, "c.reconnect"));
    CHECK(natsConnection_FlushTimeout(nc, WAIT_MS));
    printf("RESTART %s\n", url);
    fflush(stdout);
    int rc = 0;
    if (counter_await(&disconnected, 1) < 1 && counter_await(&disconnected, 1) < 1)
        rc = fail("server did not go away");
    else if (counter_await(&reconnected, 1) < 1 && counter_await(&reconnected, 1) < 1)
        rc = fail("no reconnect within the timeout");
    else if (natsConnection_PublishString(nc, "c.reconnect", "after restart") != NATS_OK)
        rc = fail("publish after reconnect failed");
    else
        rc = expect_msg(sub, "c.reconnect", "after restart"); /* the SUB was sent again */
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(nc);
    return rc;
}

/* Subjects built from data: nats-server (not pedantic) accepts them without -ERR and keeps the
   connection; "a.*" and "a.>" reach a '>' subscriber, the empty-token one matches nobody. */
static int odd_subjects(void) {
    natsConnection *nc = NULL;
    natsSubscription *all = NULL;
    /* Static: nats.c may call back (errors, close) on its own thread after the case returned. */
    static counter errors;
    counter_init(&errors);
    CHECK(connect_to(&nc, "c-odd", &errors));
    CHECK(natsConnection_SubscribeSync(&all, nc, ">"));
    CHECK(natsConnection_FlushTimeout(nc, WAIT_MS));
    const char *odd[] = {"orders..created", "a.*", "a.>"};
    for (int i = 0; i < 3; i++)
        CHECK(natsConnection_PublishString(nc, odd[i], odd[i]));
    natsStatus s = natsConnection_FlushTimeout(nc, WAIT_MS);
    if (s != NATS_OK) {
        const char *last = NULL;
        natsConnection_GetLastError(nc, &last);
        fail("connection lost after odd subjects: %s (last error: %s)", natsStatus_GetText(s), last ? last : "none");
        natsSubscription_Destroy(all);
        natsConnection_Destroy(nc);
        return 1;
    }
    if (counter_get(&errors) != 0)
        return fail("server reported %s", natsStatus_GetText(errors.last_error));
    int rc = expect_msg(all, "a.*", "a.*");
    if (rc == 0) rc = expect_msg(all, "a.>", "a.>");
    if (rc == 0) rc = expect_nothing(nc, all);
    if (rc == 0 && natsConnection_Status(nc) != NATS_CONN_STATUS_CONNECTED)
        rc = fail("connection status %d", (int) natsConnection_Status(nc));
    natsSubscription_Destroy(all);
    natsConnection_Destroy(nc);
    return rc;
}

static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;

static void stuck_handler(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    (void) nc;
    (void) sub;
    (void) closure;
    pthread_mutex_lock(&release_lock); /* held by the case until the end: the handler stops taking */
    pthread_mutex_unlock(&release_lock);
    natsMsg_Destroy(msg);
}

/* A subscription whose handler stops taking messages overflows its pending limit in the client,
   which reports NATS_SLOW_CONSUMER; another subscriber gets everything. Every path releases the
   stuck handler before closing: a connection cannot close while its handler is held. */
#define TRY(call)                                                                         \
    do {                                                                                  \
        natsStatus s_ = (call);                                                           \
        if (s_ != NATS_OK) {                                                              \
            rc = fail("%s: %s (%s)", #call, natsStatus_GetText(s_), nats_GetLastError(NULL)); \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

static int slow_consumer_client(void) {
    natsConnection *nc = NULL, *healthy = NULL;
    natsSubscription *stuck = NULL, *hs = NULL;
    /* Static: nats.c may call back (errors, close) on its own thread after the case returned. */
    static counter errors;
    int rc = 0;
    char payload[16];
    counter_init(&errors);
    pthread_mutex_lock(&release_lock);
    TRY(connect_to(&nc, "c-slow-client", &errors));
    TRY(connect_to(&healthy, "c-slow-healthy", NULL));
    TRY(natsConnection_Subscribe(&stuck, nc, "c.slow.client", stuck_handler, NULL));
    TRY(natsSubscription_SetPendingLimits(stuck, 10, 1 << 20));
    TRY(natsConnection_SubscribeSync(&hs, healthy, "c.slow.client"));
    TRY(natsConnection_FlushTimeout(healthy, WAIT_MS));
    TRY(natsConnection_FlushTimeout(nc, WAIT_MS));
    for (int i = 0; i < 200; i++) {
        snprintf(payload, sizeof payload, "%d", i);
        TRY(natsConnection_PublishString(nc, "c.slow.client", payload));
    }
    if (counter_await(&errors, 1) < 1)
        rc = fail("no slow consumer error");
    else if (errors.last_error != NATS_SLOW_CONSUMER)
        rc = fail("want NATS_SLOW_CONSUMER, got %s", natsStatus_GetText(errors.last_error));
    for (int i = 0; i < 200 && rc == 0; i++) {
        snprintf(payload, sizeof payload, "%d", i);
        rc = expect_msg(hs, "c.slow.client", payload);
    }
done:
    pthread_mutex_unlock(&release_lock);
    natsSubscription_Destroy(stuck);
    natsSubscription_Destroy(hs);
    natsConnection_Destroy(nc);
    natsConnection_Destroy(healthy);
    return rc;
}

/* Reads one line (up to LF) from a raw socket; returns its length or -1. */
static int read_line(int fd, char *line, int capacity) {
    int n = 0;
    while (n < capacity - 1) {
        ssize_t r = recv(fd, line + n, 1, 0);
        if (r <= 0)
            return -1;
        if (line[n++] == '\n')
            break;
    }
    line[n] = 0;
    return n;
}

/* A subscriber that stops reading its socket is cut off by the server, while a healthy
   subscriber on the same subject gets every message and its connection keeps working. */
static int slow_consumer_server(void) {
    char host[64];
    int port = 0;
    if (sscanf(url, "nats://%63[^:]:%d", host, &port) != 2)
        return fail("cannot parse %s", url);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096; /* a small window, so that the server's output backs up soon */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct timeval timeout = {WAIT_MS / 1000, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *) &address, sizeof address) != 0) {
        close(fd);
        return fail("raw connect: %s", strerror(errno));
    }
    char line[8192];
    const char *hello = "CONNECT {\"verbose\":false}\r\nSUB c.slow.server 1\r\nPING\r\n";
    if (read_line(fd, line, sizeof line) < 0 || strncmp(line, "INFO ", 5) != 0
        || send(fd, hello, strlen(hello), 0) != (ssize_t) strlen(hello)
        || read_line(fd, line, sizeof line) < 0 || strcmp(line, "PONG\r\n") != 0) {
        close(fd);
        return fail("raw subscriber handshake failed at: %s", line);
    }
    /* From here on the raw subscriber reads nothing until the publishing is over. */
    natsConnection *healthy = NULL, *pub = NULL;
    natsSubscription *hs = NULL;
    /* Static: nats.c may call back (errors, close) on its own thread after the case returned. */
    static counter received;
    counter_init(&received);
    CHECK(connect_to(&healthy, "c-slow-server-healthy", NULL));
    CHECK(natsConnection_Subscribe(&hs, healthy, "c.slow.server", on_count, &received));
    CHECK(natsSubscription_SetPendingLimits(hs, -1, -1));
    CHECK(natsConnection_FlushTimeout(healthy, WAIT_MS));
    CHECK(connect_to(&pub, "c-slow-server-pub", NULL));
    static char payload[1024];
    const int messages = SLOW_PUBLISH_BYTES / (int) sizeof payload;
    for (int i = 0; i < messages; i++)
        CHECK(natsConnection_Publish(pub, "c.slow.server", payload, sizeof payload));
    CHECK(natsConnection_FlushTimeout(pub, 2 * WAIT_MS));
    int rc = 0;
    int got = counter_await(&received, messages);
    if (got < messages)
        got = counter_await(&received, messages);
    if (got != messages)
        rc = fail("healthy subscriber got %d of %d", got, messages);
    else if (natsConnection_FlushTimeout(healthy, WAIT_MS) != NATS_OK)
        rc = fail("healthy connection broken after the slow consumer");
    if (rc == 0) {
        /* The slow one was closed: reading on, it reaches the end of the stream well before all
           the published bytes (what was already in its socket buffers only). */
        long total = 0;
        ssize_t r;
        char buffer[65536];
        while ((r = recv(fd, buffer, sizeof buffer, 0)) > 0)
            total += r;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            rc = fail("raw subscriber still open after %ld bytes read", total);
        else if (total >= SLOW_PUBLISH_BYTES)
            rc = fail("raw subscriber got all %ld bytes: not treated as slow", total);
    }
    close(fd);
    natsSubscription_Destroy(hs);
    natsConnection_Destroy(healthy);
    natsConnection_Destroy(pub);
    return rc;
}

typedef struct {
    const char *name;
    int (*run)(void);
} test_case;

static const test_case CASES[] = {
    {"pubsub", pubsub},
    {"wildcards", wildcards},
    {"queue-groups", queue_groups},
    {"request-reply", request_reply},
    {"no-responders", no_responders},
    {"headers", headers},
    {"drain", drain},
    {"reconnect", reconnect},
    {"odd-subjects", odd_subjects},
    {"slow-consumer-client", slow_consumer_client},
    {"slow-consumer-server", slow_consumer_server},
    {"connect-refused", connect_refused},
    {"tls-reload", tls_reload},
};

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s nats://host:port case...\n", argv[0]);
        return 2;
    }
    url = argv[1];
    const char *unsupported = tls_unsupported();
    if (unsupported != NULL) {
        for (int a = 2; a < argc; a++)
            printf("FAIL %s: %s\n", argv[a], unsupported);
        return 1;
    }
    int failed = 0;
    for (int a = 2; a < argc; a++) {
        const test_case *found = NULL;
        for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
            if (strcmp(CASES[i].name, argv[a]) == 0)
                found = &CASES[i];
        failure[0] = 0;
        if (found == NULL) {
            printf("FAIL %s: no such case\n", argv[a]);
            failed++;
        } else if (found->run() != 0) {
            printf("FAIL %s: %s\n", argv[a], failure);
            failed++;
        } else {
            printf("PASS %s\n", argv[a]);
        }
        fflush(stdout);
    }
    nats_Close();
    return failed ? 1 : 0;
}
