package io.ringbus.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringbus.inbox.*} properties: how the inboxes of {@code @RingbusListener(inbox = ...)}
 * methods keep the event ids they recorded (ringbus-outbox's {@code InboxBuilder}). A property left
 * unset keeps {@code InboxBuilder}'s default: ids kept 7 days, purged every 1,000 messages.
 *
 * <p>Durations are text in ringbus' one duration grammar, {@link io.ringbus.core.Durations}.
 */
@ConfigurationProperties("ringbus.inbox")
public class RingbusInboxProperties {

    /**
     * How long a recorded event id is kept (InboxBuilder default: 7d), at least 1s: a redelivery
     * later than this after the first commit is applied again.
     */
    private String retention;

    /** After how many messages an inbox purges ids past the retention (default 1000; 0: never). */
    private Integer purgeEvery;

    /** Creates the properties with the defaults (Spring binds them). */
    public RingbusInboxProperties() {
    }

    /** @return how long a recorded event id is kept, or null for the default */
    public String getRetention() {
        return retention;
    }

    /** @param retention how long a recorded event id is kept */
    public void setRetention(String retention) {
        this.retention = retention;
    }

    /** @return after how many messages an inbox purges, or null for the default */
    public Integer getPurgeEvery() {
        return purgeEvery;
    }

    /** @param purgeEvery after how many messages an inbox purges (0: never) */
    public void setPurgeEvery(Integer purgeEvery) {
        this.purgeEvery = purgeEvery;
    }
}
