package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiValue;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One thread of the inferior as {@code -thread-info} reports it.
 *
 * @param id       gdb's global thread number (also the DAP thread id)
 * @param lwp      the kernel thread id, when the target id names one
 * @param pthread  the pthread_t (on x86-64 glibc the thread pointer, fs_base), when libthread_db gave it
 * @param targetId gdb's description ("Thread 0x7ffff7a3e740 (LWP 4711)")
 * @param name     the thread's name (comm), when gdb knows it
 * @param running  whether the thread is running (non-stop) rather than stopped
 * @param frame    its innermost frame while stopped
 */
public record GdbThread(int id, OptionalLong lwp, OptionalLong pthread, String targetId, Optional<String> name,
                        boolean running, Optional<GdbFrame> frame) {

    static GdbThread parse(MiValue thread) {
        String targetId = thread.string("target-id").orElse("");
        return new GdbThread(Integer.parseInt(thread.requireString("id")), lwpOf(targetId), pthreadOf(targetId),
                targetId, thread.string("name").or(() -> thread.string("details")),
                thread.string("state").map("running"::equals).orElse(false),
                thread.get("frame").map(GdbFrame::parse));
    }

    /** The LWP in a target id: "Thread 0x… (LWP 4711)", "LWP 4711" or "process 4711". */
    static OptionalLong lwpOf(String targetId) {
        for (String marker : new String[] {"LWP ", "process "}) {
            int at = targetId.indexOf(marker);
            if (at >= 0) {
                int start = at + marker.length();
                int end = start;
                while (end < targetId.length() && Character.isDigit(targetId.charAt(end))) {
                    end++;
                }
                if (end > start && end - start < 12) {
                    return OptionalLong.of(Long.parseLong(targetId.substring(start, end)));
                }
            }
        }
        return OptionalLong.empty();
    }

    /** The pthread_t in a target id: "Thread 0x7ffff7a3e740 (LWP 4711)". */
    static OptionalLong pthreadOf(String targetId) {
        String marker = "Thread 0x";
        int at = targetId.indexOf(marker);
        if (at < 0) {
            return OptionalLong.empty();
        }
        int start = at + marker.length();
        int end = start;
        while (end < targetId.length() && Character.digit(targetId.charAt(end), 16) >= 0) {
            end++;
        }
        if (end == start || end - start > 16) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseUnsignedLong(targetId.substring(start, end), 16));
    }
}
