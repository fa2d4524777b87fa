package io.ringbus.server.spi;

import java.util.concurrent.CompletionStage;

/**
 * A monitoring path an extension serves ({@link ExtensionContext#monitor}), such as JetStream's
 * {@code /jsz}: behind the monitor's own credentials (a request without one never gets here),
 * counted in {@code /varz http_req_stats}, answered {@code application/json}.
 *
 * <p>{@link #answer} is called on the monitor's one event loop, which serves every monitoring
 * client: it must not block. What needs another thread (state that only its own thread may read)
 * is gathered there and the stage completed from it; the monitor reads nothing more from that HTTP
 * connection meanwhile (its answers keep their order) and answers {@code 503} with
 * {@code Retry-After} when the stage has not completed within 5 s. The {@link MonitorJson} it
 * completes with is run on the monitor's loop, into a bounded document.
 */
@FunctionalInterface
public interface MonitorEndpoint {
    /**
     * @param query the path, the viewer's scope and the query parameters
     * @return the stage completing with the writer of the answer; completed exceptionally with an
     *         {@link IllegalArgumentException} (or throwing one) answers {@code 400} with its
     *         message, with anything else {@code 500}
     */
    CompletionStage<MonitorJson> answer(MonitorQuery query);
}
