package dev.jompd.gdb;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.core.target.TargetThread;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * gdb's threads of the inferior — gdb's thread number, LWP and pthread_t — asked once per stop. The
 * pthread_t is gdb's thread handle (libthread_db's, no thread switch needed) or, where gdb has none,
 * the thread pointer register gdb reads for it (glibc: pthread_t is the thread pointer).
 */
final class GdbThreads {
    /** One gdb thread. */
    record GdbThread(int num, long lwp, OptionalLong pthread) {
        TargetThread asTargetThread() {
            return new TargetThread(lwp, pthread, Map.of());
        }
    }

    private final GdbChannel gdb;
    private List<GdbThread> threads;
    private boolean withPthreads;
    private Map<Long, GdbThread> byLwp;
    private Map<Long, GdbThread> byPthread;

    GdbThreads(GdbChannel gdb) {
        this.gdb = gdb;
    }

    /**
     * The threads in gdb's order.
     *
     * @param needPthreads whether every thread's pthread_t is needed (live and remote targets: it is
     *                     how OpenMP threads are matched to OS threads); a core file knows them itself
     */
    synchronized List<GdbThread> list(boolean needPthreads) {
        if (threads == null || (needPthreads && !withPthreads)) {
            JsonObject answer = gdb.ask("threads", question -> question.addProperty("pthreads", needPthreads));
            List<GdbThread> list = new ArrayList<>();
            for (JsonElement element : answer.getAsJsonArray("threads")) {
                JsonObject thread = element.getAsJsonObject();
                list.add(new GdbThread(thread.get("num").getAsInt(), TargetContext.number(thread, "lwp").orElse(0),
                        TargetContext.number(thread, "pthread")));
            }
            threads = List.copyOf(list);
            withPthreads = needPthreads;
            byLwp = new HashMap<>();
            byPthread = new HashMap<>();
            for (GdbThread thread : threads) {
                byLwp.putIfAbsent(thread.lwp(), thread);
                thread.pthread().ifPresent(p -> byPthread.putIfAbsent(p, thread));
            }
        }
        return threads;
    }

    synchronized Optional<GdbThread> byLwp(long lwp) {
        list(false);
        return Optional.ofNullable(byLwp.get(lwp));
    }

    synchronized Optional<GdbThread> byPthread(long pthread) {
        list(false);
        return Optional.ofNullable(byPthread.get(pthread));
    }

    /** The target resumed: the thread list is asked again at the next stop. */
    synchronized void invalidate() {
        threads = null;
        byLwp = null;
        byPthread = null;
    }
}
