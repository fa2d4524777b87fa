package io.ringbus.storage.tck;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;

import java.nio.file.Path;
import java.time.Duration;

/** The contract on the embedded log, under {@link FsyncPolicy#ALWAYS}. */
class LocalStorageContractTest extends StorageContract {
    @Override
    protected Storage open(Path directory) {
        return Storage.local(directory.resolve("store"), FsyncPolicy.ALWAYS, Duration.ofMillis(100));
    }
}
