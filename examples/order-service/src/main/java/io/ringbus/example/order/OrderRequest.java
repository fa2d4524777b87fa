package io.ringbus.example.order;

/**
 * The body of {@code POST /orders}: {@code {"sku": "apple", "quantity": 2}}.
 *
 * @param sku      the article, 1 to {@value #MAX_SKU_LENGTH} characters
 * @param quantity how many, at least 1
 */
public record OrderRequest(String sku, int quantity) {

    /** The longest sku the {@code orders} table holds. */
    public static final int MAX_SKU_LENGTH = 64;

    /**
     * Checks the request at the edge, before anything is stored or published.
     *
     * @return this request
     * @throws IllegalArgumentException naming the value that is wrong
     */
    public OrderRequest validated() {
        if (sku == null || sku.isBlank() || sku.length() > MAX_SKU_LENGTH) {
            throw new IllegalArgumentException("sku must be 1 to " + MAX_SKU_LENGTH + " characters: sku=" + sku);
        }
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity must be at least 1: quantity=" + quantity);
        }
        return this;
    }
}
