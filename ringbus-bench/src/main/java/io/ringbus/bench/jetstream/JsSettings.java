package io.ringbus.bench.jetstream;

import java.time.Duration;

/**
 * The jetstream scenario's workload, the same for both servers.
 *
 * @param duration       publish and KV cases: measured time
 * @param warmup         publish and KV cases: unmeasured time before it (its operations count in
 *                       the CPU per message, as the server did them)
 * @param warmServer     each server's first publishing after its start, before any case (JIT); what
 *                       it stored is then read back once by a pull, a push and an ordered consumer
 * @param window         async publish: most PubAcks outstanding
 * @param replayMessages read cases: messages filled, then read back by each
 * @param ackBatch       pull case: messages per fetch
 * @param kvKeys         KV cases: distinct keys
 * @param timeout        longest one jsbench step may take
 */
record JsSettings(Duration duration, Duration warmup, Duration warmServer, int window, long replayMessages,
                  int ackBatch, int kvKeys, Duration timeout) {
}
