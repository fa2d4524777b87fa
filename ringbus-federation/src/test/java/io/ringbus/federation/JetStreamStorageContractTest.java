package io.ringbus.federation;

import io.ringbus.core.Storage;
import io.ringbus.storage.tck.StorageContract;

import java.nio.file.Path;
import java.util.List;

/** The storage contract on the machine's NATS JetStream, each test on its own streams, deleted after. */
class JetStreamStorageContractTest extends StorageContract {
    @Override
    protected Storage open(Path directory) {
        return JetStreamStorage.builder().servers(TestJetStream.URL).connectionName("storage-contract").connect();
    }

    @Override
    protected void deleteStreams(Storage store, List<String> names) {
        for (String name : names) {
            TestJetStream.deleteStream(((JetStreamStorage) store).connection(), name);
        }
    }
}
