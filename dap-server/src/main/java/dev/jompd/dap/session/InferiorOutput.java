package dev.jompd.dap.session;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The launched program's standard output and error, kept apart from gdb's MI stream: two named pipes the
 * program's shell redirects to ({@code >out 2>err}), each read by a thread that forwards the text as DAP
 * output events. Standard input is {@code /dev/null}. The pipes are opened read-write here, so neither the
 * program's open nor this side's blocks, whoever comes first.
 */
final class InferiorOutput implements AutoCloseable {
    private final Path directory;
    private final Path out;
    private final Path err;
    private final RandomAccessFile outPipe;
    private final RandomAccessFile errPipe;
    /**
     * Written behind the program's output by {@link #drain}: a zero byte (which occurs only there) and
     * random bytes, which a program writes by chance with a probability of 2^-248.
     */
    private static final byte[] DRAIN_MARK = drainMark();
    /** The drain waiting for each category's reader to reach the mark. */
    private final Map<String, CompletableFuture<Void>> drains = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private InferiorOutput(Path directory, Path out, Path err, RandomAccessFile outPipe, RandomAccessFile errPipe) {
        this.directory = directory;
        this.out = out;
        this.err = err;
        this.outPipe = outPipe;
        this.errPipe = errPipe;
    }

    /** Creates the pipes and starts forwarding: {@code sink.accept("stdout"|"stderr", text)}. */
    static InferiorOutput open(BiConsumer<String, String> sink) throws IOException {
        Path directory = Files.createTempDirectory("jompd-dap-");
        Path out = directory.resolve("stdout");
        Path err = directory.resolve("stderr");
        for (Path pipe : List.of(out, err)) {
            Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", pipe.toString()).redirectErrorStream(true).start();
            try {
                if (!mkfifo.waitFor(10, TimeUnit.SECONDS) || mkfifo.exitValue() != 0) {
                    throw new IOException("mkfifo " + pipe + " failed: " + new String(mkfifo.getInputStream().readAllBytes()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted creating " + pipe);
            }
        }
        InferiorOutput output = new InferiorOutput(directory, out, err, new RandomAccessFile(out.toFile(), "rw"),
                new RandomAccessFile(err.toFile(), "rw"));
        output.forward(output.outPipe, "stdout", sink);
        output.forward(output.errPipe, "stderr", sink);
        return output;
    }

    private static byte[] drainMark() {
        byte[] mark = new byte[32];
        new SecureRandom().nextBytes(mark);
        for (int i = 1; i < mark.length; i++) {
            mark[i] = mark[i] == 0 ? 1 : mark[i];
        }
        mark[0] = 0;
        return mark;
    }

    /** The shell redirections to append to the program's arguments. */
    String redirections() {
        return "</dev/null >" + ShellQuoting.quote(out.toString()) + " 2>" + ShellQuoting.quote(err.toString());
    }

    private void forward(RandomAccessFile pipe, String category, BiConsumer<String, String> sink) {
        Thread.ofPlatform().daemon().name("inferior-" + category).start(() -> {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            byte[] buffer = new byte[16 * 1024];
            var pending = java.nio.ByteBuffer.allocate(buffer.length + DRAIN_MARK.length + 8);
            var chars = java.nio.CharBuffer.allocate(buffer.length + DRAIN_MARK.length + 8);
            int matched = 0; // bytes of DRAIN_MARK seen so far, held back from the client
            try {
                for (int n; (n = pipe.read(buffer)) > 0 && !closed; ) {
                    boolean drained = false;
                    for (int i = 0; i < n; i++) {
                        byte b = buffer[i];
                        if (b == DRAIN_MARK[matched]) {
                            if (++matched == DRAIN_MARK.length) {
                                matched = 0;
                                drained = true; // everything before the mark goes out first, below
                            }
                            continue;
                        }
                        // not the mark after all: what was held back is the program's (DRAIN_MARK[0]
                        // occurs once in the mark, so no later start of it can be among the held bytes)
                        pending.put(DRAIN_MARK, 0, matched);
                        matched = 0;
                        if (b == DRAIN_MARK[0]) {
                            matched = 1;
                        } else {
                            pending.put(b);
                        }
                    }
                    pending.flip();
                    decoder.decode(pending, chars, false); // an incomplete UTF-8 sequence waits for its rest
                    pending.compact();
                    chars.flip();
                    if (chars.hasRemaining()) {
                        sink.accept(category, chars.toString());
                    }
                    chars.clear();
                    if (drained) {
                        CompletableFuture<Void> waiting = drains.remove(category);
                        if (waiting != null) {
                            waiting.complete(null);
                        }
                    }
                }
            } catch (IOException closed) {
                // the session ended
            }
        });
    }

    /**
     * Waits (at most {@code max}) until everything the program wrote has been forwarded: the program
     * ended, and its last output must reach the client before the exited event does. The pipes stay open
     * on this side, so no end of file says it: this side writes a mark behind the program's bytes into each
     * pipe, and each reader, which forwards in order, completes the wait when it reaches its mark.
     */
    void drain(Duration max) {
        if (closed) {
            return;
        }
        CompletableFuture<Void> outDrained = new CompletableFuture<>();
        CompletableFuture<Void> errDrained = new CompletableFuture<>();
        drains.put("stdout", outDrained);
        drains.put("stderr", errDrained);
        try {
            outPipe.write(DRAIN_MARK); // a pipe write this short is atomic: the mark arrives whole
            errPipe.write(DRAIN_MARK);
            CompletableFuture.allOf(outDrained, errDrained).get(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (IOException | ExecutionException | TimeoutException e) {
            // forwarded what could be: the exit is told anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            drains.clear();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (RandomAccessFile pipe : List.of(outPipe, errPipe)) {
            try {
                pipe.write(0); // wakes the reader, which sees `closed` and ends (close alone would not wake it)
                pipe.close();
            } catch (IOException ignored) {
                // nothing more to read
            }
        }
        try {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            Files.deleteIfExists(directory);
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
