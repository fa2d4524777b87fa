package io.ringbus.example.order;

import io.ringbus.core.Headers;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.spring.RingbusTemplate;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row, its {@link OrderPlaced} event and the stock update in one transaction. */
@Service
public class OrderService {

    private final OrderRepository orders;
    private final RingbusTemplate ringbus;

    /**
     * @param orders  the tables
     * @param ringbus the template; {@value OrderPlaced#SUBJECT} is guaranteed, so its publish
     *                appends to the outbox on this transaction's connection
     */
    public OrderService(OrderRepository orders, RingbusTemplate ringbus) {
        this.orders = orders;
        this.ringbus = ringbus;
    }

    /**
     * Stores the order, publishes its event and takes the stock, all or nothing: when the stock
     * update fails, after the publish, the transaction rolls back and the event with it (its
     * outbox row is never committed, so nothing is delivered).
     *
     * @param request a {@linkplain OrderRequest#validated() validated} request
     * @return the placed order
     * @throws OutOfStockException when the stock holds too little
     */
    @Transactional
    public Order place(OrderRequest request) {
        Order order = new Order(UUID.randomUUID().toString(), request.sku(), request.quantity(), Order.Status.PLACED);
        orders.insert(order);
        ringbus.publish(OrderPlaced.SUBJECT, Headers.of(OutboxEvent.KEY_HEADER, order.id()),
                new OrderPlaced(order.id(), order.sku(), order.quantity()));
        orders.reserve(order.sku(), order.quantity());
        return order;
    }
}
