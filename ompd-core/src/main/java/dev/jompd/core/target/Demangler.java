package dev.jompd.core.target;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * C++ names (Itanium ABI, {@code _Z…}) as people read them, through GNU {@code c++filt}: one long-lived
 * process per demangler, one line in and one out per name, each answer bounded by a timeout, every
 * answer cached.
 *
 * <p>Why a subprocess: Maven Central has no maintained Java Itanium demangler, and the mangling grammar
 * (templates, substitutions, lambdas, ABI tags, clones) is large; libiberty's demangler behind
 * {@code c++filt} is the one gdb itself uses, so jompd names a function exactly as gdb's backtrace does.
 * c++filt ships with binutils, which every machine that compiles or debugs C++ has. Without it, or when it
 * misbehaves, names stay mangled (never wrong).
 */
public final class Demangler implements AutoCloseable {
    private static final long ANSWER_TIMEOUT_MS = 2000;
    /** Longer names are left alone: c++filt's recursion on hostile input is not worth the risk. */
    private static final int MAX_NAME_LENGTH = 4096;

    private final Map<String, String> cache = new ConcurrentHashMap<>();
    private final List<String> command;
    private Process process;
    private Writer toFilter;
    private BufferedReader fromFilter;
    private ExecutorService reader;
    private boolean unavailable;

    /** Names in full: {@code void apply<main::$_0>(main::$_0)}, {@code Grid::relax() const}. */
    public Demangler() {
        this(List.of("c++filt"));
    }

    private Demangler(List<String> command) {
        this.command = command;
    }

    /**
     * Names without their parameters, return type and qualifiers ({@code c++filt -p}, libiberty without
     * {@code DMGL_PARAMS}): {@code apply<main::$_0>}, {@code Grid::relax}.
     */
    public static Demangler withoutParameters() {
        return new Demangler(List.of("c++filt", "-p"));
    }

    /** Whether {@code symbol} is an Itanium-mangled C++ name (possibly with a clone suffix). */
    public static boolean isMangled(String symbol) {
        return symbol.startsWith("_Z") && symbol.length() > 2;
    }

    /** The demangled form of {@code symbol}; the symbol itself when it is not mangled or cannot be demangled. */
    public String demangle(String symbol) {
        if (!isMangled(symbol) || symbol.length() > MAX_NAME_LENGTH || !isClean(symbol)) {
            return symbol;
        }
        return cache.computeIfAbsent(symbol, name -> ask(name).orElse(name));
    }

    /**
     * Whether {@code symbol} is made only of what a mangled name is made of (letters, digits, {@code _},
     * and the {@code .} and {@code $} of clone suffixes). Anything else stays mangled: one line in must
     * give one line out, and a {@code \r} (a line end to our reader, not to c++filt) or a space (which
     * c++filt reads as two names) in a symbol read from a target would break that.
     */
    private static boolean isClean(String symbol) {
        for (int i = 0; i < symbol.length(); i++) {
            char c = symbol.charAt(i);
            boolean clean = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == '$';
            if (!clean) {
                return false;
            }
        }
        return true;
    }

    private synchronized Optional<String> ask(String symbol) {
        if (unavailable) {
            return Optional.empty();
        }
        try {
            if (process == null) {
                process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                toFilter = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
                fromFilter = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                reader = Executors.newSingleThreadExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "jompd-c++filt");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            toFilter.write(symbol);
            toFilter.write('\n');
            toFilter.flush();
            Future<String> answer = reader.submit(fromFilter::readLine);
            String line = answer.get(ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (line == null || line.isBlank()) {
                stop();
                return Optional.empty();
            }
            return Optional.of(line.strip());
        } catch (IOException | ExecutionException | TimeoutException e) {
            stop(); // no c++filt, or one that hangs or died: mangled names from now on
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private void stop() {
        unavailable = true;
        close();
    }

    @Override
    public synchronized void close() {
        unavailable = true; // closed: cached answers only, never a new process
        if (process != null) {
            process.destroy();
            process = null;
        }
        if (reader != null) {
            reader.shutdownNow();
            reader = null;
        }
    }
}
