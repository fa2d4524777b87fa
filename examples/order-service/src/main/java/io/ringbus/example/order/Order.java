package io.ringbus.example.order;

/**
 * An order as stored in the {@code orders} table and returned by {@code GET /orders/{id}}.
 *
 * @param id       the id the service gave it
 * @param sku      the article ordered
 * @param quantity how many
 * @param status   {@link Status#PLACED} until {@link OrderConfirmationListener} has seen its event
 */
public record Order(String id, String sku, int quantity, Status status) {

    /** Where an order is. */
    public enum Status {
        /** Stored, its {@link OrderPlaced} event committed with it. */
        PLACED,
        /** Its event was delivered and handled. */
        CONFIRMED
    }
}
