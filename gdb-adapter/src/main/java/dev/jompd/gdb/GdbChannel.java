package dev.jompd.gdb;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The engine's end of the pipe to gdb: one JSON object per line, UTF-8, both ways (see the README's
 * "gdb bridge protocol"). gdb sends requests ({@code {"id","command","args","context"}}); while the
 * engine works on one it may ask gdb questions ({@code {"ask": n, "what": ...}}), which gdb answers
 * ({@code {"answer": n, ...}} or {@code {"answer": n, "error": "..."}}) before anything else; the request
 * ends with {@code {"reply": id, "text": ...}} or {@code {"reply": id, "error": ...}}.
 *
 * <p>Single-threaded by design: gdb handles one command at a time, and so does the engine.
 */
public final class GdbChannel {
    /** The protocol's name and version, sent first in the {@code hello} line. */
    public static final String PROTOCOL = "jompd-gdb/1";

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private final BufferedReader in;
    private final Writer out;
    private long nextQuestion = 1;
    private long questions;

    public GdbChannel(InputStream in, OutputStream out) {
        this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
        this.out = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    }

    /** The next message from gdb, or empty at the end of the stream (gdb went away). */
    public JsonObject read() {
        String line;
        do {
            try {
                line = in.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException("reading from gdb", e);
            }
            if (line == null) {
                return null;
            }
        } while (line.isBlank());
        try {
            return JsonParser.parseString(line).getAsJsonObject();
        } catch (JsonParseException | IllegalStateException e) {
            throw new ProtocolException("gdb sent a line that is not a JSON object: " + abbreviate(line));
        }
    }

    public void send(JsonObject message) {
        try {
            out.write(GSON.toJson(message));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to gdb", e);
        }
    }

    /**
     * Asks gdb a question and waits for its answer.
     *
     * @param what       the question's name ({@code read}, {@code threads}, {@code symbol}, {@code frames})
     * @param parameters fills in the question's parameters
     * @throws GdbQuestionException when gdb answers with an error
     */
    public JsonObject ask(String what, Consumer<JsonObject> parameters) {
        long id = nextQuestion++;
        questions++;
        JsonObject question = new JsonObject();
        question.addProperty("ask", id);
        question.addProperty("what", what);
        parameters.accept(question);
        send(question);
        JsonObject answer = read();
        if (answer == null) {
            throw new ProtocolException("gdb closed the pipe before answering question " + what);
        }
        if (!answer.has("answer") || answer.get("answer").getAsLong() != id) {
            throw new ProtocolException("expected the answer to question " + id + " (" + what + "), got "
                    + abbreviate(answer.toString()));
        }
        if (answer.has("error")) {
            throw new GdbQuestionException(what, answer.get("error").getAsString());
        }
        return answer;
    }

    /** How many questions were asked so far (for statistics and tests). */
    public long questionsAsked() {
        return questions;
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    /** The other side broke the protocol: the engine cannot go on with this request. */
    public static final class ProtocolException extends RuntimeException {
        public ProtocolException(String message) {
            super(message);
        }
    }
}
