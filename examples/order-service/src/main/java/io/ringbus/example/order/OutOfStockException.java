package io.ringbus.example.order;

/** Thrown when an order asks for more than the stock holds; the order's transaction rolls back. */
public class OutOfStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param sku      the article
     * @param quantity what the order asked for
     * @param cause    the database's refusal
     */
    public OutOfStockException(String sku, int quantity, Throwable cause) {
        super("not enough stock: sku=" + sku + ", quantity=" + quantity, cause);
    }
}
