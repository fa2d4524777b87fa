/*
 * What the case files of jscontract share: the connection and JetStream context, failure
 * reporting (CHECK, EXPECT) and the KV cases (jscontract_kv.c).
 */
#ifndef JSCONTRACT_H
#define JSCONTRACT_H

#include <nats/nats.h>

/* Bound on every JetStream API call and every wait for a message, in milliseconds. */
#define WAIT_MS 5000

extern natsConnection *nc;
extern jsCtx *js;

/* Records why the current case failed; returns 1 so that cases can `return fail(...)`. */
int fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Whether `data` (of `len` bytes) is the string `text`. */
int is(const char *data, int len, const char *text);

/*
 * A call that must succeed: on failure, the status, the JetStream error code and the client's
 * text. A call that takes a jsErrCode pointer gets `errCode`, which this macro declares.
 */
#define CHECK(call)                                                                             \
    do {                                                                                        \
        jsErrCode code_ = 0;                                                                    \
        jsErrCode *errCode = &code_;                                                            \
        (void) errCode;                                                                         \
        natsStatus s_ = (call);                                                                 \
        if (s_ != NATS_OK)                                                                      \
            return fail("%s: %s, err_code %d (%s)", #call, natsStatus_GetText(s_), (int) code_, \
                        nats_GetLastError(NULL));                                               \
    } while (0)

/* A condition that must hold; the rest is printf arguments for the reason. */
#define EXPECT(condition, ...)        \
    do {                              \
        if (!(condition))             \
            return fail(__VA_ARGS__); \
    } while (0)

int case_kv_create_bucket(void);
int case_kv_put_get(void);
int case_kv_create_exists(void);
int case_kv_update_revision(void);
int case_kv_delete(void);
int case_kv_purge(void);
int case_kv_history(void);
int case_kv_keys(void);
int case_kv_watch(void);

#endif
