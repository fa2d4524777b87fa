package io.ringbus.example.order;

import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} (201 with the order, 400 for a bad request, 409 when out of stock) and
 * {@code GET /orders/{id}} (200, or 404).
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderService service;
    private final OrderRepository orders;

    /**
     * @param service places orders
     * @param orders  reads them
     */
    public OrderController(OrderService service, OrderRepository orders) {
        this.service = service;
        this.orders = orders;
    }

    /**
     * @param request the order to place
     * @return 201 Created, with the order and its location
     */
    @PostMapping
    public ResponseEntity<Order> place(@RequestBody OrderRequest request) {
        Order order = service.place(request.validated());
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    /**
     * @param id the order's id
     * @return the order, or 404
     */
    @GetMapping("/{id}")
    public ResponseEntity<Order> get(@PathVariable String id) {
        return ResponseEntity.of(orders.find(id));
    }

    /**
     * @param e the validation failure
     * @return 400, with the message naming the value
     */
    @ExceptionHandler(IllegalArgumentException.class)
    public ProblemDetail badRequest(IllegalArgumentException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    }

    /**
     * @param e the stock's refusal
     * @return 409; the order was not stored and its event not published
     */
    @ExceptionHandler(OutOfStockException.class)
    public ProblemDetail outOfStock(OutOfStockException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
    }
}
