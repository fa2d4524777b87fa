package io.ringbus.jetstream;

import io.nats.client.Connection;

/**
 * One life of a server between a start and its {@code kill -9}, as the test's clients see it: the
 * connections made to it while it ran (they never reconnect, so whatever comes through them came
 * from this life).
 *
 * @param number      0 for the first start, then one more per restart
 * @param publishers  the publishers' connection
 * @param worker      the consuming worker's connection
 * @param last        whether this is the last life: no kill follows, the clients finish their work
 */
record ServerLife(int number, Connection publishers, Connection worker, boolean last) {
}
