package io.ringbus.server.monitor;

/**
 * What the dashboard shows of an outbox relay. ringbus-server does not depend on the outbox
 * module: an application that runs a relay next to the server maps its
 * {@code RelayStats} to this record in a supplier it registers with
 * {@link MonitorSources.Builder#outboxBacklog}.
 *
 * <pre>{@code
 * MonitorSources.builder().outboxBacklog(() -> {
 *     RelayStats s = relay.stats();
 *     return new OutboxBacklog(s.name(), s.pending(), s.dead(), s.inFlight(), s.delivered());
 * })
 * }</pre>
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param name      the relay's name
 * @param pending   rows waiting for delivery (-1 when not counted yet)
 * @param dead      dead letters (-1 when not counted yet)
 * @param inFlight  rows being delivered now
 * @param delivered rows delivered since the relay started
 */
public record OutboxBacklog(String name, long pending, long dead, long inFlight, long delivered) {
}
