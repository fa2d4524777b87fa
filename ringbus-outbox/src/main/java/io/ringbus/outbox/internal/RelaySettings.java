package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.RetryPolicy;
import java.util.List;

/**
 * A relay's checked configuration (see {@code RelayBuilder} for each value's meaning).
 *
 * @param name                 the relay's name
 * @param routes               subject pattern to sink, first match wins
 * @param batchSize            rows per claim
 * @param parallelBatches      batches in flight at once (loops)
 * @param pollMillis           idle wait
 * @param busyPollMillis       wait after a cycle that found rows
 * @param deliveryTimeoutMillis timeout of one delivery
 * @param retryPolicy          backoff and attempts
 * @param deleteDelivered      delete instead of marking
 * @param retentionMillis      how long delivered rows are kept
 * @param sweepMillis          retention sweep interval
 * @param countMillis          pending/dead count interval
 * @param listen               whether NOTIFY wakes the relay (PostgreSQL)
 * @param eventIdPrefix        event id prefix
 * @param leaseMillis          PostgreSQL: how long a loop's bucket leases and heartbeat stay valid
 */
public record RelaySettings(String name, List<Route> routes, int batchSize, int parallelBatches, long pollMillis,
                            long busyPollMillis, long deliveryTimeoutMillis,
                            RetryPolicy retryPolicy, boolean deleteDelivered, long retentionMillis, long sweepMillis,
                            long countMillis, boolean listen, String eventIdPrefix, long leaseMillis) {
    /**
     * @param pattern subject pattern
     * @param sink    where matching rows go
     */
    public record Route(String pattern, OutboxSink sink) {
    }
}
