package io.ringbus.bench.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's page cache, dropped between a server's death and its restart so that the restart
 * reads its store from the disk, as after a power cut: {@code sync}, then {@code 3} written to
 * {@code /proc/sys/vm/drop_caches} (Linux, root only). Where that is not allowed the cache is kept
 * and the results say so.
 */
final class PageCache {
    private static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");

    private PageCache() {
    }

    /**
     * Writes every dirty page back, then drops clean pages, dentries and inodes.
     *
     * @return true when the cache was dropped; false when this process may not (not root, not Linux)
     */
    static boolean drop() throws InterruptedException {
        try {
            Process sync = new ProcessBuilder("sync").redirectErrorStream(true).start();
            if (!sync.waitFor(300, TimeUnit.SECONDS)) {
                sync.destroyForcibly();
                return false;
            }
            Files.writeString(DROP_CACHES, "3", StandardCharsets.US_ASCII);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
