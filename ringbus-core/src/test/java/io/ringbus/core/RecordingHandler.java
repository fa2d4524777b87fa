package io.ringbus.core;

import io.ringbus.testkit.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/** Keeps a detached copy of every message it receives, and the thread that handled it. */
final class RecordingHandler implements MessageHandler {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Message> messages = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    @Override
    public void onMessage(Message message) {
        Message copy = message.copy();
        lock.lock();
        try {
            messages.add(copy);
            threads.add(Thread.currentThread());
        } finally {
            lock.unlock();
        }
    }

    int count() {
        lock.lock();
        try {
            return messages.size();
        } finally {
            lock.unlock();
        }
    }

    List<Message> messages() {
        lock.lock();
        try {
            return List.copyOf(messages);
        } finally {
            lock.unlock();
        }
    }

    List<Object> payloads() {
        lock.lock();
        try {
            List<Object> payloads = new ArrayList<>(messages.size());
            for (Message message : messages) {
                payloads.add(message.payload());
            }
            return payloads;
        } finally {
            lock.unlock();
        }
    }

    List<String> subjects() {
        lock.lock();
        try {
            List<String> subjects = new ArrayList<>(messages.size());
            for (Message message : messages) {
                subjects.add(message.subject());
            }
            return subjects;
        } finally {
            lock.unlock();
        }
    }

    List<Thread> threads() {
        lock.lock();
        try {
            return List.copyOf(threads);
        } finally {
            lock.unlock();
        }
    }

    boolean hasPayload(Object payload) {
        return payloads().contains(payload);
    }

    void awaitCount(int expected) {
        Await.until("a handler received " + expected + " messages", () -> count() >= expected, this::payloads);
    }

    void awaitPayload(Object payload) {
        Await.until("a handler received payload " + payload, () -> hasPayload(payload), this::payloads);
    }
}
