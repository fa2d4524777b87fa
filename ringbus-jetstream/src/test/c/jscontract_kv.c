/*
 * jscontract's KV cases: nats.c's key-value store (kvStore_*) on a bucket of each case's own,
 * as jscontract.js runs them with nats.js.
 */
#define _GNU_SOURCE
#include <nats/nats.h>
#include <stdio.h>
#include <string.h>

#include "jscontract.h"

static int bucket(const char *name, uint8_t history, kvStore **kv) {
    kvConfig cfg;
    kvConfig_Init(&cfg);
    cfg.Bucket = name;
    cfg.History = history;
    CHECK(js_CreateKeyValue(kv, js, &cfg));
    return 0;
}

/* "<op> <key>=<value>@<revision>" of an entry, into `out`. */
static const char *describe(kvEntry *e, char *out, size_t size) {
    static const char *const OPS[] = {"UNKNOWN", "PUT", "DEL", "PURGE"};
    kvOperation op = kvEntry_Operation(e);
    snprintf(out, size, "%s %s=%.*s@%llu", op <= kvOp_Purge ? OPS[op] : "?", kvEntry_Key(e), kvEntry_ValueLen(e),
             (const char *) kvEntry_Value(e), (unsigned long long) kvEntry_Revision(e));
    return out;
}

int case_kv_create_bucket(void) {
    kvStore *kv = NULL;
    if (bucket("conf", 5, &kv) != 0)
        return 1;
    kvStatus *status = NULL;
    CHECK(kvStore_Status(&status, kv));
    EXPECT(strcmp(kvStatus_Bucket(status), "conf") == 0 && kvStatus_History(status) == 5 && kvStatus_Values(status) == 0,
           "status: %s, history %lld, values %llu", kvStatus_Bucket(status), (long long) kvStatus_History(status),
           (unsigned long long) kvStatus_Values(status));
    kvStatus_Destroy(status);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_put_get(void) {
    kvStore *kv = NULL;
    if (bucket("kvpg", 5, &kv) != 0)
        return 1;
    uint64_t rev = 0;
    CHECK(kvStore_PutString(&rev, kv, "color", "blue"));
    kvEntry *e = NULL;
    CHECK(kvStore_Get(&e, kv, "color"));
    char text[128];
    EXPECT(rev == 1 && strcmp(describe(e, text, sizeof text), "PUT color=blue@1") == 0, "put %llu, got %s",
           (unsigned long long) rev, text);
    kvEntry_Destroy(e);
    e = NULL;
    natsStatus s = kvStore_Get(&e, kv, "absent");
    EXPECT(s == NATS_NOT_FOUND, "absent key: %s", natsStatus_GetText(s));
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_create_exists(void) {
    kvStore *kv = NULL;
    if (bucket("kvcr", 1, &kv) != 0)
        return 1;
    uint64_t rev = 0;
    CHECK(kvStore_CreateString(&rev, kv, "k", "v1"));
    EXPECT(rev == 1, "create revision %llu", (unsigned long long) rev);
    natsStatus s = kvStore_CreateString(&rev, kv, "k", "v2");
    EXPECT(s != NATS_OK, "create of an existing key succeeded (revision %llu)", (unsigned long long) rev);
    kvEntry *e = NULL;
    CHECK(kvStore_Get(&e, kv, "k"));
    EXPECT(strcmp(kvEntry_ValueString(e), "v1") == 0, "value after refused create: %s", kvEntry_ValueString(e));
    kvEntry_Destroy(e);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_update_revision(void) {
    kvStore *kv = NULL;
    if (bucket("kvup", 1, &kv) != 0)
        return 1;
    uint64_t r1 = 0, r2 = 0, r3 = 0;
    CHECK(kvStore_PutString(&r1, kv, "k", "v1"));
    CHECK(kvStore_UpdateString(&r2, kv, "k", "v2", r1));
    EXPECT(r2 == r1 + 1, "update revision %llu after %llu", (unsigned long long) r2, (unsigned long long) r1);
    natsStatus s = kvStore_UpdateString(&r3, kv, "k", "v3", r1);
    EXPECT(s != NATS_OK, "update with the stale revision %llu succeeded", (unsigned long long) r1);
    EXPECT(strstr(nats_GetLastError(NULL), "wrong last sequence") != NULL, "stale update: %s: %s",
           natsStatus_GetText(s), nats_GetLastError(NULL));
    kvEntry *e = NULL;
    CHECK(kvStore_Get(&e, kv, "k"));
    EXPECT(strcmp(kvEntry_ValueString(e), "v2") == 0, "value after refused update: %s", kvEntry_ValueString(e));
    kvEntry_Destroy(e);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_delete(void) {
    kvStore *kv = NULL;
    if (bucket("kvdel", 5, &kv) != 0)
        return 1;
    CHECK(kvStore_PutString(NULL, kv, "k", "v"));
    CHECK(kvStore_Delete(kv, "k"));
    kvEntry *e = NULL;
    natsStatus s = kvStore_Get(&e, kv, "k");
    EXPECT(s == NATS_NOT_FOUND, "get after delete: %s", natsStatus_GetText(s));
    uint64_t rev = 0;
    CHECK(kvStore_CreateString(&rev, kv, "k", "again"));
    EXPECT(rev == 3, "create after delete: revision %llu", (unsigned long long) rev);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_purge(void) {
    kvStore *kv = NULL;
    if (bucket("kvpurge", 5, &kv) != 0)
        return 1;
    CHECK(kvStore_PutString(NULL, kv, "k", "v1"));
    CHECK(kvStore_PutString(NULL, kv, "k", "v2"));
    CHECK(kvStore_PutString(NULL, kv, "other", "x"));
    CHECK(kvStore_Purge(kv, "k", NULL));
    kvEntry *e = NULL;
    natsStatus s = kvStore_Get(&e, kv, "k");
    EXPECT(s == NATS_NOT_FOUND, "get after purge: %s", natsStatus_GetText(s));
    jsStreamInfo *si = NULL;
    CHECK(js_GetStreamInfo(&si, js, "KV_kvpurge", NULL, errCode));
    EXPECT(si->State.Msgs == 2, "messages after purge (the marker and other): %llu",
           (unsigned long long) si->State.Msgs);
    jsStreamInfo_Destroy(si);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_history(void) {
    kvStore *kv = NULL;
    if (bucket("kvhist", 3, &kv) != 0)
        return 1;
    const char *values[] = {"v1", "v2", "v3", "v4"};
    for (int i = 0; i < 4; i++)
        CHECK(kvStore_PutString(NULL, kv, "k", values[i]));
    CHECK(kvStore_Delete(kv, "k"));
    kvEntryList list = {0};
    CHECK(kvStore_History(&list, kv, "k", NULL));
    const char *expected[] = {"PUT k=v3@3", "PUT k=v4@4", "DEL k=@5"};
    EXPECT(list.Count == 3, "history of %d entries", list.Count);
    for (int i = 0; i < 3; i++) {
        char text[128];
        EXPECT(strcmp(describe(list.Entries[i], text, sizeof text), expected[i]) == 0, "history %d: %s", i, text);
    }
    kvEntryList_Destroy(&list);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_keys(void) {
    kvStore *kv = NULL;
    if (bucket("kvkeys", 1, &kv) != 0)
        return 1;
    const char *keys[] = {"a", "b.c", "b.d", "gone"};
    for (int i = 0; i < 4; i++)
        CHECK(kvStore_PutString(NULL, kv, keys[i], keys[i]));
    CHECK(kvStore_PutString(NULL, kv, "a", "again"));
    CHECK(kvStore_Delete(kv, "gone"));
    kvKeysList list = {0};
    CHECK(kvStore_Keys(&list, kv, NULL));
    int found = 0;
    for (int i = 0; i < list.Count; i++)
        found += strcmp(list.Keys[i], "a") == 0 || strcmp(list.Keys[i], "b.c") == 0 || strcmp(list.Keys[i], "b.d") == 0;
    EXPECT(list.Count == 3 && found == 3, "%d keys, %d of a, b.c, b.d", list.Count, found);
    kvKeysList_Destroy(&list);
    kvStore_Destroy(kv);
    return 0;
}

int case_kv_watch(void) {
    kvStore *kv = NULL;
    // History 2: with 1 the delete supersedes the put it follows, and whether a watcher sees that put
    // depends on timing, on nats-server as on ringbus.
    if (bucket("kvwatch", 2, &kv) != 0)
        return 1;
    CHECK(kvStore_PutString(NULL, kv, "a", "1"));
    kvWatcher *w = NULL;
    CHECK(kvStore_Watch(&w, kv, "a", NULL));
    kvEntry *e = NULL;
    char text[128];
    CHECK(kvWatcher_Next(&e, w, WAIT_MS));
    EXPECT(e != NULL && strcmp(describe(e, text, sizeof text), "PUT a=1@1") == 0, "initial: %s", e ? text : "none");
    kvEntry_Destroy(e);
    CHECK(kvWatcher_Next(&e, w, WAIT_MS));
    EXPECT(e == NULL, "the end of the initial values was not marked: %s", describe(e, text, sizeof text));
    CHECK(kvStore_PutString(NULL, kv, "b", "ignored"));
    CHECK(kvStore_PutString(NULL, kv, "a", "2"));
    CHECK(kvStore_Delete(kv, "a"));
    const char *expected[] = {"PUT a=2@3", "DEL a=@4"};
    for (int i = 0; i < 2; i++) {
        CHECK(kvWatcher_Next(&e, w, WAIT_MS));
        EXPECT(e != NULL && strcmp(describe(e, text, sizeof text), expected[i]) == 0, "update %d: %s", i,
               e ? text : "none");
        kvEntry_Destroy(e);
    }
    kvWatcher_Stop(w);
    kvWatcher_Destroy(w);
    kvStore_Destroy(kv);
    return 0;
}
