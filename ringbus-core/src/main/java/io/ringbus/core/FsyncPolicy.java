package io.ringbus.core;

/**
 * When an appended record is forced to the disk, stated as the window of records a crash can lose.
 */
public enum FsyncPolicy {
    /**
     * A record is durable once {@code fsync} returned after it was written; concurrent appenders
     * share one {@code fsync} (group commit). A power loss loses no acknowledged record.
     */
    ALWAYS,
    /**
     * The flusher thread forces the log every interval the store was configured with; a power loss
     * loses at most the records of the last interval. A process crash loses none.
     */
    INTERVAL,
    /**
     * Records are left to the operating system's page cache: a process crash loses none, a power
     * loss loses what the kernel had not written back.
     */
    OS
}
