package dev.jompd.dap.session;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * gdb's run state as gdb's reader thread hears it ({@code *running}, {@code *stopped}), for the session's
 * worker to wait on while it is blocked in a request (attach, disconnect): the worker cannot see the
 * async records it has not handled yet. Waiting is on a future the reader thread completes, never a poll.
 */
final class GdbRunSignal {
    private boolean running;
    private CompletableFuture<Void> nextStop = new CompletableFuture<>();

    /** gdb said {@code *running} (reader thread). */
    synchronized void running() {
        running = true;
    }

    /** gdb said {@code *stopped} (reader thread): whoever waits for the next stop goes on. */
    synchronized void stopped() {
        running = false;
        CompletableFuture<Void> reached = nextStop;
        nextStop = new CompletableFuture<>();
        reached.complete(null);
    }

    /** gdb is gone: no stop will come, nobody waits any longer. */
    synchronized void gone() {
        running = false;
        nextStop.complete(null);
    }

    /** Whether gdb last said the program runs. */
    synchronized boolean isRunning() {
        return running;
    }

    /** The next stop gdb reports from now on: take it before the command that leads to it. */
    synchronized CompletableFuture<Void> nextStop() {
        return nextStop;
    }

    /** Waits until gdb says the program stopped (at once if it is not running); false on timeout. */
    boolean awaitStopped(Duration timeout) {
        CompletableFuture<Void> stop;
        synchronized (this) {
            if (!running) {
                return true;
            }
            stop = nextStop;
        }
        return await(stop, timeout);
    }

    /** Waits for {@code stop} (from {@link #nextStop}); false on timeout. */
    static boolean await(CompletableFuture<Void> stop, Duration timeout) {
        try {
            stop.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true; // never completed exceptionally
        }
    }
}
