package dev.jompd.core.target.live;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Each thread's {@code pthread_t} (on x86-64, its thread pointer: what {@code fs_base} holds) read from
 * glibc's own thread lists, without ptrace: the read-only mode's way to tie LWPs to pthreads.
 *
 * <p>glibc keeps every thread's {@code struct pthread} on two lists, {@code _dl_stack_used} (stacks
 * glibc allocated) and {@code _dl_stack_user} (user stacks, and the main thread), members of
 * {@code _rtld_global} in ld.so since glibc 2.34 ({@code stack_used} and {@code __stack_user} in
 * libpthread before). Offsets come from glibc's breadcrumbs for libthread_db, never from headers: each
 * {@code _thread_db_<struct>_<field>} symbol (libc's .dynsym) is {@code uint32_t[3] = {size in bits,
 * count, offset}}. Each candidate is checked against the x86-64 psABI rule that a thread's TCB begins
 * with a pointer to itself.
 */
final class GlibcThreads {
    private static final int MAX_THREADS = 1 << 20;

    private GlibcThreads() {}

    /** The pthread of each thread id glibc knows, or why none could be read. */
    record Result(Map<Integer, Long> pthreadsByTid, Optional<String> problem) {}

    /** glibc's DB_STRUCT_FIELD descriptor. */
    private record Field(long bits, long count, long offset) {}

    static Result read(AddressSpace space) {
        try {
            Field tid = field(space, "_thread_db_pthread_tid");
            Field list = field(space, "_thread_db_pthread_list");
            Field next = field(space, "_thread_db_list_t_next");
            if (tid.bits() != 32) {
                return failure("_thread_db_pthread_tid describes a %d-bit field, expected a 32-bit pid_t".formatted(tid.bits()));
            }
            List<Long> heads = listHeads(space);
            if (heads.isEmpty()) {
                return failure("found neither _rtld_global (glibc >= 2.34) nor __stack_user/stack_used (older glibc)");
            }
            Map<Integer, Long> pthreads = new HashMap<>();
            Set<Long> visited = new HashSet<>();
            for (long head : heads) {
                long element = space.readPointer(head + next.offset());
                // list_t is circular: the walk ends back at the head.
                while (element != head && element != 0 && visited.add(element)) {
                    if (visited.size() > MAX_THREADS) {
                        return failure("glibc's thread list has more than %d entries: memory corrupt".formatted(MAX_THREADS));
                    }
                    long pthread = element - list.offset();
                    int threadId = (int) space.readU32(pthread + tid.offset());
                    // A thread that exited but is not joined yet has tid 0 (the kernel clears it).
                    if (threadId > 0 && space.readPointer(pthread) == pthread) {
                        pthreads.putIfAbsent(threadId, pthread);
                    }
                    element = space.readPointer(element + next.offset());
                }
            }
            return new Result(Map.copyOf(pthreads), Optional.empty());
        } catch (TargetException e) {
            return failure(e.getMessage());
        }
    }

    private static Result failure(String problem) {
        return new Result(Map.of(), Optional.of(problem));
    }

    /** The list heads of glibc's thread lists, in memory. */
    private static List<Long> listHeads(AddressSpace space) {
        Optional<TargetSymbol> rtldGlobal = space.lookupSymbol("_rtld_global");
        if (rtldGlobal.isPresent()) {
            long base = rtldGlobal.get().address();
            return List.of(base + field(space, "_thread_db_rtld_global__dl_stack_used").offset(),
                    base + field(space, "_thread_db_rtld_global__dl_stack_user").offset());
        }
        for (List<String> names : List.of(List.of("_dl_stack_used", "_dl_stack_user"), List.of("stack_used", "__stack_user"))) {
            List<Long> heads = names.stream().map(space::lookupSymbol).flatMap(Optional::stream)
                    .map(TargetSymbol::address).toList();
            if (!heads.isEmpty()) {
                return heads;
            }
        }
        return List.of();
    }

    private static Field field(AddressSpace space, String symbol) {
        TargetSymbol descriptor = space.lookupSymbol(symbol)
                .orElseThrow(() -> new TargetException("glibc's libthread_db breadcrumb " + symbol + " is not in any module"));
        // three 32-bit words: bits, count, offset
        long at = descriptor.address();
        return new Field(space.readU32(at), space.readU32(at + 4), space.readU32(at + 8));
    }

}
