package io.ringbus.server.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.server.spi.ApiRequest;
import io.ringbus.server.spi.Requester;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;

/**
 * A request from one connection to an extension's subject: copies of what it published, and its
 * answer published as data of the requester's scope ({@link Broker#publishAtScope}): the request
 * never went through the broker, which therefore remembers no scope for its reply subject, so only
 * this keeps a PUBLIC subscriber to {@code _INBOX.>} from reading a PRIVATE client's answers.
 *
 * @param subject   the subject published to
 * @param replyTo   the reply subject, or null
 * @param headers   the header block, or null
 * @param payload   the payload
 * @param requester who sent it
 * @param broker    publishes the answer
 */
record ConnectionRequest(String subject, String replyTo, byte[] headers, byte[] payload, Requester requester,
                         Broker broker) implements ApiRequest {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionRequest.class);

    @Override
    public void reply(byte[] answerHeaders, byte[] answer) {
        if (replyTo == null) {
            return;
        }
        try {
            broker.publishAtScope(requester.scope(), replyTo, null,
                    answerHeaders == null ? null : NatsHeaderBlock.wrap(answerHeaders), answer);
        } catch (ScopeViolationException | IllegalArgumentException e) {
            // Checked before the handler was called; a subject registered since may have raised it.
            LOG.debug("reply to {} for {} not published: {}", replyTo, subject, e.toString());
        } catch (IllegalStateException brokerClosed) {
            LOG.debug("reply to {} not published: broker closed", replyTo);
        }
    }

    /**
     * The connection behind a request. Permission checks read the immutable allow and deny lists,
     * so any thread may ask.
     *
     * @param scope        its scope
     * @param name         who it authenticated as, or null
     * @param connectionId its id
     * @param permissions  its permissions, or null
     * @param broker       the broker (subject scopes)
     * @param refusal      sends a permission violation for a subject on the connection's event loop
     */
    record Sender(Scope scope, String name, long connectionId, ConnectionPermissions permissions,
                  io.ringbus.core.Broker broker, Consumer<String> refusal) implements Requester {
        @Override
        public boolean mayPublish(String subject) {
            try {
                return scope.includes(broker.scopeOf(subject))
                        && (permissions == null || permissions.allowsPublish(subject));
            } catch (IllegalArgumentException notValid) {
                return false;
            }
        }

        @Override
        public boolean maySubscribe(String subject) {
            try {
                return scope.includes(broker.maxScopeOf(subject))
                        && (permissions == null || permissions.maySubscribe(subject, null));
            } catch (IllegalArgumentException notValid) {
                return false;
            }
        }

        @Override
        public void refuse(String subject) {
            refusal.accept(subject);
        }
    }
}
