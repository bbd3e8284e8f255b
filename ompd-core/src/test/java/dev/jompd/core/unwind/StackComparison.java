package dev.jompd.core.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Compares jompd's stacks with gdb's frame by frame (function, source file name, line) and lists every
 * difference. gdb stops at {@code main} (its "backtrace past-main" is off), so jompd's frames after
 * {@code main} are not compared. gdb's tail-call frames (from DW_TAG_call_site) are compared too: jompd
 * finds them the same way.
 */
final class StackComparison {
    private StackComparison() {}

    static List<String> differences(Map<Long, List<GdbBacktrace.Frame>> truth, List<NativeStack> stacks) {
        return differences(truth, stacks, false);
    }

    /**
     * @param skipMovedThreads live processes: a thread that ran between gdb's look and jompd's (a
     *                         spinning waiter; its innermost pc differs) is not compared
     */
    static List<String> differences(Map<Long, List<GdbBacktrace.Frame>> truth, List<NativeStack> stacks,
                                    boolean skipMovedThreads) {
        List<String> problems = new ArrayList<>();
        if (truth.size() != stacks.size()) {
            problems.add("gdb sees %d threads, jompd %d".formatted(truth.size(), stacks.size()));
        }
        for (NativeStack stack : stacks) {
            List<GdbBacktrace.Frame> expected = truth.get(stack.lwp());
            if (expected == null) {
                problems.add("thread %d: gdb does not know it".formatted(stack.lwp()));
                continue;
            }
            List<GdbBacktrace.Frame> gdbFrames = expected;
            if (skipMovedThreads && !gdbFrames.isEmpty() && !stack.frames().isEmpty()
                    && gdbFrames.getFirst().pc() != stack.frames().getFirst().pc()) {
                continue;
            }
            // gdb stops at its main function ("backtrace past-main" off): C's main, or for Fortran the
            // program's procedure (called by main) when gdb finds it, which it does live but not on cores.
            List<NativeFrame> ours = new ArrayList<>(stack.frames());
            int shown = gdbFrames.size();
            if (shown > 0 && ours.size() > shown) {
                boolean gdbEndsAtMain = gdbFrames.getLast().function().equals("main")
                        || ours.get(shown).function().filter("main"::equals).isPresent();
                if (gdbEndsAtMain) {
                    ours = ours.subList(0, shown);
                }
            }
            if (gdbFrames.size() != ours.size()) {
                problems.add("thread %d: gdb has %d frames, jompd %d%s\n  gdb:   %s\n  jompd: %s".formatted(stack.lwp(),
                        gdbFrames.size(), ours.size(), stack.truncation().map(t -> " (" + t + ")").orElse(""),
                        gdbFrames.stream().map(f -> f.function() + ":" + f.line()).toList(),
                        ours.stream().map(f -> f.function().orElse("??") + ":" + f.source().map(SourceLocation::line).orElse(0)).toList()));
            }
            for (int i = 0; i < Math.min(gdbFrames.size(), ours.size()); i++) {
                GdbBacktrace.Frame want = gdbFrames.get(i);
                NativeFrame got = ours.get(i);
                String gotFunction = got.function().orElse("??");
                String gotFile = got.source().map(SourceLocation::fileName).orElse("");
                int gotLine = got.source().map(SourceLocation::line).orElse(0);
                if (!want.function().equals(gotFunction) || !want.fileName().equals(gotFile) || want.line() != gotLine) {
                    problems.add("thread %d frame %d: gdb %s at %s:%d (pc 0x%x), jompd %s at %s:%d (pc 0x%x, %s)".formatted(
                            stack.lwp(), i, want.function(), want.fileName(), want.line(), want.pc(), gotFunction, gotFile,
                            gotLine, got.pc(), got.method()));
                }
            }
        }
        return problems;
    }
}
