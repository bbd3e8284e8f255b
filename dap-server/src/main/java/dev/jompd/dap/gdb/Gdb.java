package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiParseException;
import dev.jompd.dap.mi.MiParser;
import dev.jompd.dap.mi.MiRecord;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One gdb process driven through GDB/MI ({@code --interpreter=mi3}). Commands carry a token; their
 * answers complete futures. Everything else gdb prints (async and stream records) goes to the
 * {@link Listener}, in order, on the reader thread. When gdb exits every waiting command fails with
 * {@link GdbExitedException} and the listener hears why; a command that gets no answer in time fails with
 * {@link GdbTimeoutException}, never a silent hang.
 */
public final class Gdb implements AutoCloseable {
    /** Longest MI line accepted (a -thread-info of 4096 threads is about 2 MB). */
    static final int MAX_LINE_BYTES = 64 << 20;

    /** Receives what gdb says besides answers. Called on the reader thread, in gdb's order. */
    public interface Listener {
        void onAsync(MiRecord.AsyncRecord record);

        void onStream(MiRecord.StreamRecord record);

        /** A line that is not MI, or malformed MI: reported, then skipped. */
        void onNoise(String line, String problem);

        /** gdb is gone; {@code description} says how (exit code or signal) and why if known. */
        void onExit(String description);
    }

    private record Pending(long token, String command, CompletableFuture<GdbResult> answer, StringBuilder console) {}

    private final Process process;
    private final Listener listener;
    private final Duration defaultTimeout;
    private final OutputStream stdin;
    private final AtomicLong tokens = new AtomicLong(1);
    private final Deque<Pending> pending = new ArrayDeque<>();
    private final Thread reader;
    private final StringBuilder stderr = new StringBuilder();
    private volatile boolean closing;
    private volatile String exitDescription;

    private Gdb(Process process, Listener listener, Duration defaultTimeout) {
        this.process = process;
        this.listener = listener;
        this.defaultTimeout = defaultTimeout;
        this.stdin = process.getOutputStream();
        this.reader = Thread.ofPlatform().daemon().name("gdb-mi-" + process.pid()).unstarted(this::readLoop);
        Thread.ofPlatform().daemon().name("gdb-stderr-" + process.pid()).start(this::drainStderr);
    }

    /**
     * Starts {@code gdb --interpreter=mi3 -nx -q} ({@code executable} may be another gdb binary).
     *
     * @param environment the environment gdb (and so the programs it starts) gets
     * @param directory   gdb's working directory, or null for the server's
     */
    public static Gdb start(String executable, List<String> extraArguments, Map<String, String> environment,
                            Path directory, Duration defaultTimeout, Listener listener) {
        List<String> command = new ArrayList<>(List.of(executable, "--interpreter=mi3", "-nx", "-q"));
        command.addAll(extraArguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().putAll(environment);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new GdbStartException("cannot start " + executable + ": " + e.getMessage()
                    + " (set miDebuggerPath to gdb's path)", e);
        }
        Gdb gdb = new Gdb(process, listener, defaultTimeout);
        gdb.reader.start();
        return gdb;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive() && exitDescription == null;
    }

    public Duration defaultTimeout() {
        return defaultTimeout;
    }

    /** Sends {@code command} (an MI command, without token) and returns its answer's future. */
    public CompletableFuture<GdbResult> submit(String command) {
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("an MI command is one line: " + command);
        }
        CompletableFuture<GdbResult> answer = new CompletableFuture<>();
        IOException broken = null;
        synchronized (pending) {
            if (exitDescription != null) {
                answer.completeExceptionally(new GdbExitedException(exitDescription));
                return answer;
            }
            long token = tokens.getAndIncrement();
            pending.addLast(new Pending(token, command, answer, new StringBuilder()));
            try {
                stdin.write((token + command + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            } catch (IOException e) {
                pending.removeLast();
                broken = e;
            }
        }
        if (broken != null) {
            // gdb is gone or going: say how it ended rather than "broken pipe"
            try {
                reader.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer.completeExceptionally(new GdbExitedException(exitDescription != null ? exitDescription
                    : "gdb does not read its input any more: " + broken.getMessage()));
        }
        return answer;
    }

    /** Sends {@code command} and waits for its answer for the default time. */
    public GdbResult execute(String command) {
        return execute(command, defaultTimeout);
    }

    /**
     * Sends {@code command} and waits for its answer.
     *
     * @throws GdbCommandException gdb answered {@code ^error}
     * @throws GdbTimeoutException no answer within {@code timeout}
     * @throws GdbExitedException  gdb is gone
     */
    public GdbResult execute(String command, Duration timeout) {
        return await(submit(command), command, timeout);
    }

    /** Waits for an answer from {@link #submit}. */
    public static GdbResult await(CompletableFuture<GdbResult> answer, String command, Duration timeout) {
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new GdbTimeoutException(command, timeout);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GdbException gdbException) {
                throw gdbException;
            }
            throw new GdbException(command + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GdbException("interrupted while waiting for gdb to answer " + command);
        }
    }

    private void readLoop() {
        try (InputStream in = new BufferedInputStream(process.getInputStream(), 1 << 16)) {
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            boolean overlong = false;
            for (int b; (b = in.read()) >= 0; ) {
                if (b != '\n') {
                    if (line.size() < MAX_LINE_BYTES) {
                        line.write(b);
                    } else {
                        overlong = true;
                    }
                    continue;
                }
                String text = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (overlong) {
                    overlong = false;
                    listener.onNoise(text.substring(0, 200), "line longer than " + MAX_LINE_BYTES + " bytes skipped");
                    continue;
                }
                handleLine(text);
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                exitDescription = "lost gdb's output: " + e;
            }
        }
        finish();
    }

    private void handleLine(String text) {
        MiRecord record;
        try {
            record = MiParser.parse(text);
        } catch (MiParseException e) {
            listener.onNoise(text, e.getMessage());
            return;
        }
        switch (record) {
            case MiRecord.ResultRecord result -> complete(result);
            case MiRecord.AsyncRecord async -> listener.onAsync(async);
            case MiRecord.StreamRecord stream -> {
                synchronized (pending) {
                    Pending oldest = pending.peekFirst();
                    if (oldest != null && stream.kind() == MiRecord.StreamKind.CONSOLE) {
                        oldest.console().append(stream.text());
                    }
                }
                listener.onStream(stream);
            }
            case MiRecord.Prompt prompt -> { }
            case MiRecord.Unrecognized unrecognized -> listener.onNoise(unrecognized.line(), "not GDB/MI output");
        }
    }

    private void complete(MiRecord.ResultRecord result) {
        Pending match = null;
        synchronized (pending) {
            if (result.token().isPresent()) {
                long token = result.token().getAsLong();
                for (Pending candidate : pending) {
                    if (candidate.token() == token) {
                        match = candidate;
                        break;
                    }
                }
                if (match != null) {
                    // gdb answers in order: anything older than this answer will never get one of its own
                    while (!pending.isEmpty() && pending.peekFirst() != match) {
                        Pending skipped = pending.removeFirst();
                        skipped.answer().completeExceptionally(new GdbException("gdb answered a later command ("
                                + match.command() + ") before " + skipped.command()));
                    }
                    pending.removeFirst();
                }
            }
        }
        if (match == null) {
            if (!(closing && result.resultClass().equals("exit"))) {
                listener.onNoise(result.toString(), "an answer to no command that is waiting");
            }
            return;
        }
        if (result.isError()) {
            match.answer().completeExceptionally(new GdbCommandException(match.command(),
                    result.results().string("msg").orElse("gdb reported an error")));
        } else {
            match.answer().complete(new GdbResult(result.resultClass(), result.results(), match.console().toString()));
        }
    }

    private void drainStderr() {
        try (InputStream err = process.getErrorStream()) {
            byte[] buffer = new byte[8192];
            for (int n; (n = err.read(buffer)) > 0; ) {
                String text = new String(buffer, 0, n, StandardCharsets.UTF_8);
                synchronized (stderr) {
                    if (stderr.length() < 64 * 1024) {
                        stderr.append(text);
                    }
                }
                listener.onStream(new MiRecord.StreamRecord(MiRecord.StreamKind.LOG, text));
            }
        } catch (IOException ignored) {
            // gdb went away; its exit is reported by the reader
        }
    }

    private void finish() {
        String description;
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int code = process.isAlive() ? -1 : process.exitValue();
        if (exitDescription != null) {
            description = exitDescription;
        } else if (closing) {
            description = "gdb ended (session closed)";
        } else if (code > 128) {
            description = "gdb crashed (killed by signal " + (code - 128) + ")";
        } else {
            description = "gdb exited with code " + code;
        }
        synchronized (stderr) {
            if (!closing && !stderr.isEmpty()) {
                description += "; its last messages: " + tail(stderr.toString().strip(), 500);
            }
        }
        List<Pending> orphans;
        synchronized (pending) {
            exitDescription = description;
            orphans = new ArrayList<>(pending);
            pending.clear();
        }
        for (Pending orphan : orphans) {
            orphan.answer().completeExceptionally(new GdbExitedException(description + " before answering "
                    + orphan.command()));
        }
        listener.onExit(description);
    }

    private static String tail(String text, int max) {
        return text.length() <= max ? text : "..." + text.substring(text.length() - max);
    }

    /** Asks gdb to exit, then kills it if it does not within a second or two. Idempotent. */
    @Override
    public void close() {
        closing = true;
        if (process.isAlive()) {
            try {
                stdin.write("-gdb-exit\n".getBytes(StandardCharsets.UTF_8));
                stdin.flush();
                stdin.close();
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!process.waitFor(2, TimeUnit.SECONDS)) {
                    kill();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
            }
        }
    }

    /** Kills gdb at once (it hangs); its exit is reported as usual. */
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
