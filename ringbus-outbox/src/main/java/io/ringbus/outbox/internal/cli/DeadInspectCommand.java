package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.DeadLetter;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxEvent;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code dead inspect ID}: every field of one dead letter, its headers, and its payload: as text
 * when it is valid UTF-8 without control characters (other than tab and line breaks), otherwise
 * as base64 (MIME lines).
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Show one dead letter in full.")
public final class DeadInspectCommand extends OutboxCommand {
    @Parameters(paramLabel = "ID", description = "the dead letter's id")
    private long id;

    /** Creates the command (picocli fills in its options). */
    public DeadInspectCommand() {
    }

    /**
     * @return 0 after printing the dead letter
     * @throws CommandFailure naming the id when there is no dead letter with it (exit code 1)
     * @throws Exception      when the database cannot be read (exit code 1)
     */
    @Override
    public Integer call() throws Exception {
        Optional<DeadLetter> found;
        try (Outbox outbox = database.open(false)) {
            found = outbox.deadLetters().inspect(id);
        }
        DeadLetter dead = found.orElseThrow(() -> new CommandFailure("not a dead letter: id " + id
                + " (no row with that id, or the row is not dead) in " + database.where()));
        OutboxEvent event = dead.event();
        PrintWriter out = out();
        out.println("id          " + event.id());
        out.println("event id    " + event.eventId());
        out.println("subject     " + event.subject());
        out.println("key         " + (event.key() == null ? "-" : event.key()));
        out.println("attempts    " + event.attempts());
        out.println("created at  " + event.createdAt());
        out.println("dead at     " + dead.deadAt());
        out.println("last error  " + dead.lastError());
        out.println("headers     " + (event.headers().names().isEmpty() ? "-" : ""));
        for (String name : event.headers().names()) {
            for (String value : event.headers().all(name)) {
                out.println("  " + name + ": " + value);
            }
        }
        String text = printable(event.payload());
        if (text != null) {
            out.println("payload     " + event.payload().length + " bytes, UTF-8 text:");
            out.println(text);
        } else {
            out.println("payload     " + event.payload().length + " bytes, base64:");
            out.println(Base64.getMimeEncoder().encodeToString(event.payload()));
        }
        out.flush();
        return 0;
    }

    /** @return the payload as text, or {@code null} when it is not printable UTF-8 */
    static String printable(byte[] payload) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        boolean control = text.chars().anyMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t');
        return control ? null : text;
    }
}
