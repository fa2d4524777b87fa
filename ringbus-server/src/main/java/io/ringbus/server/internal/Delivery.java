package io.ringbus.server.internal;

import io.ringbus.core.Message;
import io.ringbus.core.ViewHandler;

/**
 * The handler of one network subscription: called on the publishing thread (a
 * {@link io.ringbus.core.ExecutionMode#PUBLISHER} subscription), never blocks, and reads the
 * message only during the call, so a network publisher's {@link WireMessage} reaches it as a
 * view and is copied once, into the subscriber's {@link Outbound}.
 *
 * <p>Under permissions, a subject a subscribe deny entry names is never delivered (counted), and
 * a reply subject delivered becomes one the client may answer ({@code allow_responses}).
 */
final class Delivery implements ViewHandler {
    private final Outbound out;
    private final byte[] sid;
    /** The subscribing client's id: its own messages are skipped unless it asked for echo. */
    private final long self;
    private final boolean echo;
    /** Permissions to apply, or null when they change nothing for this subscription. */
    private final ConnectionPermissions granted;
    private final boolean filter;
    private final ServerCounters counters;

    Delivery(Outbound out, String sid, long self, boolean echo, ConnectionPermissions granted, String pattern,
             ServerCounters counters) {
        this.out = out;
        this.sid = SubjectCodec.encode(sid);
        this.self = self;
        this.echo = echo;
        boolean filters = granted != null && granted.filtersDeliveries(pattern);
        this.granted = granted != null && (granted.tracksReplies() || filters) ? granted : null;
        this.filter = filters;
        this.counters = counters;
    }

    @Override
    public void onMessage(Message message) {
        if (!echo && message.origin() == self) {
            return;
        }
        ConnectionPermissions g = granted;
        if (g != null) {
            if (filter && !g.deliverable(message.subject())) {
                counters.permissionFiltered.increment();
                return;
            }
            if (message.replyTo() != null && g.tracksReplies()) {
                g.delivered(message.replyTo());
            }
        }
        out.enqueue(message, sid);
    }
}
