package dev.jompd.dap.session;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    /** Readers blocked in read with nothing in hand, by category: what {@link #drain} waits for. */
    private final java.util.Map<String, Boolean> idle = new java.util.concurrent.ConcurrentHashMap<>();
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

    /** The shell redirections to append to the program's arguments. */
    String redirections() {
        return "</dev/null >" + ShellQuoting.quote(out.toString()) + " 2>" + ShellQuoting.quote(err.toString());
    }

    private void forward(RandomAccessFile pipe, String category, BiConsumer<String, String> sink) {
        Thread.ofPlatform().daemon().name("inferior-" + category).start(() -> {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            byte[] buffer = new byte[16 * 1024];
            var pending = java.nio.ByteBuffer.allocate(buffer.length + 8);
            var chars = java.nio.CharBuffer.allocate(buffer.length + 8);
            try {
                idle.put(category, true);
                for (int n; (n = pipe.read(buffer)) > 0 && !closed; ) {
                    idle.put(category, false);
                    pending.put(buffer, 0, n).flip();
                    decoder.decode(pending, chars, false); // an incomplete UTF-8 sequence waits for its rest
                    pending.compact();
                    chars.flip();
                    if (chars.hasRemaining()) {
                        sink.accept(category, chars.toString());
                    }
                    chars.clear();
                    idle.put(category, true);
                }
            } catch (IOException closed) {
                // the session ended
            }
        });
    }

    /**
     * Waits (at most {@code max}) until everything the program wrote has been forwarded: the program
     * ended, and its last output must reach the client before the exited event does. The pipes stay open
     * on this side, so no end of file says it; empty pipes and idle readers do.
     */
    void drain(java.time.Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        try (var outBytes = new java.io.FileInputStream(outPipe.getFD()) { public void close() { } };
             var errBytes = new java.io.FileInputStream(errPipe.getFD()) { public void close() { } }) {
            while (System.nanoTime() < deadline && !closed) {
                if (outBytes.available() == 0 && errBytes.available() == 0
                        && idle.getOrDefault("stdout", false) && idle.getOrDefault("stderr", false)) {
                    return;
                }
                Thread.sleep(2);
            }
        } catch (IOException | InterruptedException e) {
            // forwarded what could be: the exit is told anyway
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
