package io.ringbus.example.order;

import io.ringbus.spring.RingbusListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Confirms an order when its {@link OrderPlaced} event arrives (from the outbox relay, after the
 * order's transaction committed). Delivery is at least once, so confirming is idempotent.
 */
@Component
public class OrderConfirmationListener {

    private static final Logger LOG = LoggerFactory.getLogger(OrderConfirmationListener.class);

    private final OrderRepository orders;

    /** @param orders the tables */
    public OrderConfirmationListener(OrderRepository orders) {
        this.orders = orders;
    }

    /**
     * Runs on a worker thread (the default mode: JDBC blocks); the JSON payload is read into
     * {@link OrderPlaced}.
     *
     * @param event the placed order
     */
    @RingbusListener(subject = OrderPlaced.SUBJECT)
    public void onPlaced(OrderPlaced event) {
        if (orders.confirm(event.orderId())) {
            LOG.info("order {} confirmed ({} x {})", event.orderId(), event.quantity(), event.sku());
        }
    }
}
