package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;

/**
 * The server's API on {@code $RB.API.}: reads a request and answers it, in JetStream's reply
 * forms. The connection has checked the client's permissions and scope for the API subject and
 * the reply subject before; this only decides what the answer is.
 *
 * <p>Threading: the requesting connection's event loop.
 */
final class FilterApi {
    private FilterApi() {
    }

    /**
     * @param subject       the API subject, under {@link FilterRequest#API_PREFIX}
     * @param payload       the request
     * @param filters the requesting connection's filters
     * @return the answer: the request's result, or {@code {"error":{"code":...,"description":...}}}
     *         (404: unknown API subject; 400: a bad request or a filter limit reached, named)
     */
    static byte[] answer(String subject, ByteBuf payload, ConnectionFilters filters) {
        if (!subject.equals(FilterRequest.SUBJECT)) {
            return FilterRequest.error(404, "unknown ringbus API subject: " + subject);
        }
        byte[] bytes = new byte[payload.readableBytes()];
        payload.getBytes(payload.readerIndex(), bytes);
        try {
            FilterRequest request = FilterRequest.parse(bytes);
            return request.reply(filters.apply(request));
        } catch (IllegalArgumentException e) {
            return FilterRequest.error(400, e.getMessage());
        }
    }
}
