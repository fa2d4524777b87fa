package io.ringbus.example.order;

import java.util.Optional;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The {@code orders} and {@code stock} tables ({@code schema.sql}), through {@link JdbcTemplate}:
 * every statement joins the caller's transaction, as the outbox append does.
 */
@Repository
public class OrderRepository {

    private final JdbcTemplate jdbc;

    /** @param jdbc the application's JdbcTemplate */
    public OrderRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** @param order the order to insert */
    public void insert(Order order) {
        jdbc.update("INSERT INTO orders (id, sku, quantity, status) VALUES (?, ?, ?, ?)",
                order.id(), order.sku(), order.quantity(), order.status().name());
    }

    /**
     * Takes {@code quantity} of {@code sku} from the stock.
     *
     * @throws OutOfStockException when the stock holds less (the table's {@code CHECK} refuses
     *                             the update) or does not have the sku
     */
    public void reserve(String sku, int quantity) {
        try {
            if (jdbc.update("UPDATE stock SET available = available - ? WHERE sku = ?", quantity, sku) == 0) {
                throw new OutOfStockException(sku, quantity, null);
            }
        } catch (DataIntegrityViolationException e) {
            throw new OutOfStockException(sku, quantity, e);
        }
    }

    /**
     * Marks a placed order confirmed; an order already confirmed stays as it is, so a second
     * delivery of its event changes nothing.
     *
     * @return whether the order was {@link Order.Status#PLACED}
     */
    public boolean confirm(String id) {
        return jdbc.update("UPDATE orders SET status = ? WHERE id = ? AND status = ?",
                Order.Status.CONFIRMED.name(), id, Order.Status.PLACED.name()) == 1;
    }

    /** @return the order with this id, if there is one */
    public Optional<Order> find(String id) {
        return jdbc.query("SELECT id, sku, quantity, status FROM orders WHERE id = ?",
                (rs, row) -> new Order(rs.getString(1), rs.getString(2), rs.getInt(3),
                        Order.Status.valueOf(rs.getString(4))), id).stream().findFirst();
    }
}
