package io.ringbus.outbox.internal.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every runnable subcommand has: the {@link DatabaseOptions} and the command line's output
 * streams (which tests redirect).
 */
public abstract class OutboxCommand implements Callable<Integer> {
    /** Where the outbox is. */
    @Mixin
    protected DatabaseOptions database;

    /** The command as picocli parsed it. */
    @Spec
    protected CommandSpec spec;

    /** For subclasses (picocli fills in the options). */
    protected OutboxCommand() {
    }

    /** @return the command line's standard output */
    protected PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** @return the command line's error output */
    protected PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
