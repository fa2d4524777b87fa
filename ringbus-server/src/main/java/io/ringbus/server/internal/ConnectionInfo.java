package io.ringbus.server.internal;

import io.ringbus.core.Scope;

import java.util.List;

/**
 * What the monitor shows of one client connection (NATS {@code /connz}). Taken from another
 * thread while the connection runs, so the numbers may be a few messages apart.
 *
 * @param cid                the client id announced in INFO
 * @param ip                 the client's address, or {@code null} when unknown
 * @param port               the client's port, or 0 when unknown
 * @param startMillis        accept time, epoch milliseconds
 * @param lastActivityMillis last read from or write to the client, epoch milliseconds
 * @param rttNanos           round trip of the last server PING, 0 before the first answer
 * @param pendingBytes       delivery bytes queued for the client, not yet handed to the socket
 * @param inMsgs             messages the client published
 * @param outMsgs            messages delivered to the client
 * @param inBytes            payload and header bytes the client published
 * @param outBytes           payload and header bytes delivered to the client
 * @param name               the name from CONNECT, or {@code null}
 * @param lang               the client library's language from CONNECT, or {@code null}
 * @param version            the client library's version from CONNECT, or {@code null}
 * @param subscriptions      active subscriptions; empty unless asked for
 * @param subscriptionCount  active subscriptions
 * @param scope              the client's scope (what the monitor may show of it depends on it)
 * @param authorizedUser     who the client authenticated as (a user, an NKEY, a certificate's user, a
 *                           plug-in's identity; {@code "token"} for a token), or {@code null}
 * @param tlsVersion         the TLS protocol, e.g. {@code TLSv1.3}, or {@code null} without TLS
 * @param tlsCipherSuite     the TLS cipher suite, or {@code null} without TLS
 */
public record ConnectionInfo(long cid, String ip, int port, long startMillis, long lastActivityMillis, long rttNanos,
                             long pendingBytes, long inMsgs, long outMsgs, long inBytes, long outBytes, String name,
                             String lang, String version, List<SubscriptionInfo> subscriptions,
                             int subscriptionCount, Scope scope, String authorizedUser, String tlsVersion,
                             String tlsCipherSuite) {

    /**
     * One network subscription.
     *
     * @param id         the broker's subscription id (joins with the broker's statistics)
     * @param subject    its subject or pattern
     * @param queueGroup its queue group, or {@code null}
     * @param sid        the client's subscription id
     * @param msgs       messages delivered to it
     * @param cid        the connection's client id
     * @param filter     its filter's text ({@code $RB.API.FILTER}), or {@code null} without one
     * @param filtered   messages its filter rejected
     */
    public record SubscriptionInfo(long id, String subject, String queueGroup, String sid, long msgs, long cid,
                                   String filter, long filtered) {
    }
}
