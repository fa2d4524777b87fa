package io.ringbus.outbox.internal.cli;

import picocli.CommandLine.Command;

/**
 * {@code dead}: the dead letters, rows a relay gave up on. Only a parent for {@code list},
 * {@code inspect}, {@code retry} and {@code purge}; alone it is a usage error.
 */
@Command(name = "dead", mixinStandardHelpOptions = true,
        description = "List, inspect, retry or purge dead letters.",
        subcommands = {DeadListCommand.class, DeadInspectCommand.class, DeadRetryCommand.class, DeadPurgeCommand.class})
public final class DeadCommand {
    /** Creates the command. */
    public DeadCommand() {
    }
}
