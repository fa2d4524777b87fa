/*
 * TLS settings and the TLS cases of clienttest. connect_to takes its TLS settings from the
 * environment, so that any case using it runs over TLS when they are set:
 *
 *     CLIENTTEST_TLS_CA          PEM file of the CA the client trusts
 *     CLIENTTEST_TLS_CERT, _KEY  client certificate and key, for mutual TLS
 *     CLIENTTEST_TLS_FIRST       "1": TLS handshake before INFO
 *     CLIENTTEST_TLS_RELOAD_CA   tls-reload only: the CA of the certificate the server reloads
 *
 * nats.c checks the server certificate's host name only when asked
 * (natsOptions_SetExpectedHostname): with a CA set, the program asks for the URL's host, as an
 * application connecting by name would.
 *
 * nats.c 3.4.1 (Debian's libnats-dev) has no TLS handshake first: natsOptions_TLSHandshakeFirst
 * came in a later version (nats-io/nats.c#780). With CLIENTTEST_TLS_FIRST set the program fails every case without
 * connecting (tls_unsupported) rather than quietly connecting after INFO.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clienttest.h"

static const char *setting(const char *name) {
    const char *value = getenv(name);
    return value != NULL && value[0] != 0 ? value : NULL;
}

/* Secure, trusting `ca`, expecting the URL's host name, presenting `cert` when not NULL. */
static natsStatus tls_settings(natsOptions *opts, const char *ca, const char *cert, const char *key) {
    natsStatus s = NATS_OK;
    if (ca != NULL) {
        const char *host = strstr(url, "://");
        host = host != NULL ? host + 3 : url;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int) strcspn(host, ":/"), host);
        s = natsOptions_SetSecure(opts, true);
        if (s == NATS_OK) s = natsOptions_LoadCATrustedCertificates(opts, ca);
        if (s == NATS_OK) s = natsOptions_SetExpectedHostname(opts, name);
    }
    if (s == NATS_OK && cert != NULL) s = natsOptions_LoadCertificatesChain(opts, cert, key);
    return s;
}

natsStatus tls_apply(natsOptions *opts) {
    return tls_settings(opts, setting("CLIENTTEST_TLS_CA"), setting("CLIENTTEST_TLS_CERT"),
                        setting("CLIENTTEST_TLS_KEY"));
}

const char *tls_unsupported(void) {
    const char *first = setting("CLIENTTEST_TLS_FIRST");
    if (first != NULL && strcmp(first, "1") == 0)
        return "nats.c " NATS_VERSION_STRING " has no TLS handshake first";
    return NULL;
}

/* Expects the connection to fail, and prints "REFUSED <error>" so that the caller can check why. */
int connect_refused(void) {
    natsConnection *nc = NULL;
    natsStatus s = connect_to(&nc, "c-refused", NULL);
    if (s == NATS_OK) {
        natsConnection_Destroy(nc);
        return fail("connected to %s", url);
    }
    printf("REFUSED %s: %s\n", natsStatus_GetText(s), nats_GetLastError(NULL));
    fflush(stdout);
    return 0;
}

/*
 * Holds a connection while the server reloads its certificate: prints "RELOAD", after which the
 * caller replaces the certificate with one from CLIENTTEST_TLS_RELOAD_CA; a new connection
 * trusting only that CA then succeeds, the held one was never dropped, and a message goes from
 * the new connection to the held one and back.
 */
int tls_reload(void) {
    const char *renewed_ca = setting("CLIENTTEST_TLS_RELOAD_CA");
    if (renewed_ca == NULL)
        return fail("CLIENTTEST_TLS_RELOAD_CA is not set");
    natsOptions *opts = NULL;
    natsConnection *held = NULL, *renewed = NULL;
    natsSubscription *to_held = NULL, *to_renewed = NULL;
    CHECK(natsOptions_Create(&opts));
    CHECK(natsOptions_SetURL(opts, url));
    CHECK(natsOptions_SetTimeout(opts, WAIT_MS));
    /* Without reconnects a dropped connection is closed for good: its status says so at the end.
       (No disconnected callback: nats.c also calls it, later, for the close at the end.) */
    CHECK(natsOptions_SetAllowReconnect(opts, false));
    CHECK(tls_apply(opts));
    CHECK(natsConnection_Connect(&held, opts));
    natsOptions_Destroy(opts);
    CHECK(natsConnection_SubscribeSync(&to_held, held, "c.reload.held"));
    CHECK(natsConnection_FlushTimeout(held, WAIT_MS));
    printf("RELOAD\n");
    fflush(stdout);

    CHECK(natsOptions_Create(&opts));
    CHECK(natsOptions_SetURL(opts, url));
    CHECK(natsOptions_SetTimeout(opts, WAIT_MS));
    CHECK(natsOptions_SetAllowReconnect(opts, false));
    CHECK(tls_settings(opts, renewed_ca, NULL, NULL));
    natsStatus s = NATS_OK;
    for (int64_t deadline = nats_Now() + WAIT_MS; renewed == NULL; nats_Sleep(100)) {
        s = natsConnection_Connect(&renewed, opts);
        if (s == NATS_OK)
            break;
        renewed = NULL;
        if (nats_Now() > deadline)
            return fail("no connection trusting only the renewed certificate's CA: %s (%s)", natsStatus_GetText(s),
                        nats_GetLastError(NULL));
    }
    natsOptions_Destroy(opts);
    CHECK(natsConnection_SubscribeSync(&to_renewed, renewed, "c.reload.renewed"));
    CHECK(natsConnection_FlushTimeout(renewed, WAIT_MS));
    CHECK(natsConnection_PublishString(renewed, "c.reload.held", "to held"));
    int rc = expect_msg(to_held, "c.reload.held", "to held");
    if (rc == 0 && natsConnection_PublishString(held, "c.reload.renewed", "to renewed") != NATS_OK)
        rc = fail("held connection cannot publish after the reload");
    if (rc == 0)
        rc = expect_msg(to_renewed, "c.reload.renewed", "to renewed");
    if (rc == 0 && natsConnection_Status(held) != NATS_CONN_STATUS_CONNECTED)
        rc = fail("held connection was dropped: status %d", (int) natsConnection_Status(held));
    natsSubscription_Destroy(to_renewed);
    natsSubscription_Destroy(to_held);
    natsConnection_Destroy(renewed);
    natsConnection_Destroy(held);
    return rc;
}
