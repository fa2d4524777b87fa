package io.ringbus.server.spi;

/**
 * Answers the requests on the subjects an extension registered ({@link ExtensionContext#handle}).
 *
 * <p>Called on the requesting connection's event loop, which serves many clients: it MUST NOT
 * block. A handler queues the work to its own executor, bounded and counted per requester, and
 * answers a full queue with an error reply, never by waiting or by an unbounded queue. An
 * exception it throws is logged and counted; the connection stays.
 */
@FunctionalInterface
public interface RequestHandler {
    /**
     * @param request the request, already checked against the requester's scope and publish
     *                permissions (the subject and the reply subject)
     */
    void handle(ApiRequest request);
}
