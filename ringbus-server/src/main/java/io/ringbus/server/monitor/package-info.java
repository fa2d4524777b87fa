/**
 * Monitoring of a ringbus-server: what an embedder passes to the HTTP monitoring port (a meter
 * registry, a log of watchdog warnings, an outbox backlog source). The endpoints themselves are
 * described in docs/monitoring.md; the implementation is in {@code io.ringbus.server.internal.monitor}.
 */
package io.ringbus.server.monitor;
