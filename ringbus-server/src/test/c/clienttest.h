/*
 * What the case files of clienttest share: the server URL, failure reporting, a counter that
 * callbacks raise, and connecting with the CLIENTTEST_TLS_* settings (tls.c).
 */
#ifndef CLIENTTEST_H
#define CLIENTTEST_H

#include <nats/nats.h>
#include <pthread.h>

/* Bound on every wait for a message, a callback or a socket: turns a hang into a failure. */
#define WAIT_MS 15000

/* The server URL, from the command line. */
extern const char *url;

/* Records why the current case failed; returns 1 so that cases can `return fail(...)`. */
int fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(call)                                                                       \
    do {                                                                                  \
        natsStatus s_ = (call);                                                           \
        if (s_ != NATS_OK)                                                                \
            return fail("%s: %s (%s)", #call, natsStatus_GetText(s_), nats_GetLastError(NULL)); \
    } while (0)

/* A counter that callbacks raise and the main thread waits on, with a deadline. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int count;
    natsStatus last_error;
} counter;

void counter_init(counter *c);
void counter_add(counter *c, natsStatus err);
/* Waits until the count reaches `target` or WAIT_MS pass; returns the count. */
int counter_await(counter *c, int target);
int counter_get(counter *c);
/* A connection event callback: raises the counter given as closure. */
void on_event(natsConnection *nc, void *closure);

/* Connects with no reconnects and the TLS settings; `errors` (may be NULL) counts asynchronous errors. */
natsStatus connect_to(natsConnection **nc, const char *name, counter *errors);
/* Reads the next message of a synchronous subscription and checks subject and payload. */
int expect_msg(natsSubscription *sub, const char *subject, const char *payload);

/* Applies the CLIENTTEST_TLS_* settings to `opts` (nothing when none is set). */
natsStatus tls_apply(natsOptions *opts);
/* Why the CLIENTTEST_TLS_* settings cannot be honoured by this nats.c, or NULL. */
const char *tls_unsupported(void);
/* The TLS cases. */
int connect_refused(void);
int tls_reload(void);

#endif
