package io.ringbus.spring.test.app;

import org.springframework.stereotype.Service;

/** A service with no listener: the slice leaves it out (its constructor would fail the context). */
@Service
public class OrderService {

    public OrderService() {
        throw new IllegalStateException("OrderService is not part of the ringbus slice");
    }
}
