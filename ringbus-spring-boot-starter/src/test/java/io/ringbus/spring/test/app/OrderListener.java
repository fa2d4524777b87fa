package io.ringbus.spring.test.app;

import io.ringbus.spring.RingbusListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/** A listener component: the slice loads it. */
@Component
public class OrderListener {

    final List<String> received = new CopyOnWriteArrayList<>();

    @RingbusListener(subject = "orders.created")
    void onCreated(String orderId) {
        received.add(orderId);
    }
}
