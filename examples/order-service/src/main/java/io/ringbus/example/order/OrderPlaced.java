package io.ringbus.example.order;

/**
 * The event of a placed order, published to {@value #SUBJECT}: a guaranteed subject, stored in
 * the outbox as JSON in the transaction that stores the order, keyed by the order id (events of
 * one order are delivered in commit order).
 *
 * @param orderId  the order's id
 * @param sku      the article
 * @param quantity how many
 */
public record OrderPlaced(String orderId, String sku, int quantity) {

    /** The subject; {@code ringbus.outbox.guaranteed-subjects=orders.>} makes it guaranteed. */
    public static final String SUBJECT = "orders.placed";
}
