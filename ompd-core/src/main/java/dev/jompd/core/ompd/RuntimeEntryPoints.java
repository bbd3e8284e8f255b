package dev.jompd.core.ompd;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Where libomp starts the OpenMP code a source line begins, for stepping into it (gdb's {@code ompd step},
 * the DAP's stepIn): the functions a door breaks at, and at each the entry point of the region's or the
 * task's code. The doors only set the breakpoints, read registers and move; the rule is here, once.
 *
 * <p>Region starts: libomp's own start of clang-compiled regions ({@code __kmp_invoke_microtask(pkfn,
 * &gtid, &tid, argc, argv)}, whose pkfn is the outlined function, or, for a GNU-compiled region, one of
 * libomp's GOMP wrappers ({@link GnuWrappers}) whose function is then {@code argv[0]}), and the GNU entry
 * points, which call the outlined function, their first argument, themselves. Task start: libomp's
 * {@code ompd_bp_task_begin} (called only with {@code OMP_DEBUG=enabled}), where OMPD names the entry
 * point of the task the thread begins.
 *
 * <p>From the code's entry a door moves on to the code's first line: see {@link #codeMove}.
 */
public final class RuntimeEntryPoints {
    /** Reads a register of the thread stopped at an entry point, by its x86-64 name as gdb spells it. */
    @FunctionalInterface
    public interface RegisterReader {
        long read(String register);
    }

    /** x86-64 System V: the integer argument registers, in order (argument 0 first). */
    private static final List<String> ARGUMENT_REGISTERS = List.of("rdi", "rsi", "rdx", "rcx", "r8", "r9");

    /** {@code __kmp_invoke_microtask(pkfn, &gtid, &tid, argc, argv)}: z_Linux_asm.S. */
    static final String INVOKE_MICROTASK = "__kmp_invoke_microtask";
    private static final int PKFN = 0;
    private static final int ARGC = 3;
    private static final int ARGV = 4;

    /** Where the runtime starts a region's code, the first argument being its entry (but see {@link #regionEntry}). */
    public static final List<String> REGION_STARTS = List.of(INVOKE_MICROTASK, "GOMP_parallel",
            "GOMP_parallel_sections", "GOMP_parallel_reductions", "GOMP_parallel_loop_static", "GOMP_parallel_loop_dynamic",
            "GOMP_parallel_loop_guided", "GOMP_parallel_loop_runtime", "GOMP_parallel_loop_nonmonotonic_dynamic",
            "GOMP_parallel_loop_nonmonotonic_guided", "GOMP_parallel_loop_nonmonotonic_runtime",
            "GOMP_parallel_loop_maybe_nonmonotonic_runtime");

    /** Where a task begins (libomp calls it only with OMP_DEBUG=enabled); its entry point comes from OMPD. */
    public static final List<String> TASK_STARTS = List.of("ompd_bp_task_begin");

    /**
     * How the runtime's shared library is named (its real file: under {@code jompd run} a gcc program
     * loads it through a link named {@code libgomp.so.1}). Code in it is stepped out of, not into.
     */
    public static final String RUNTIME_LIBRARY_PREFIX = "libomp";

    /** The registers {@link #regionEntry} reads. */
    public static final List<String> REGISTERS_READ = List.of(argument(PKFN), argument(ARGC), argument(ARGV));

    private RuntimeEntryPoints() {}

    /** Every function a step into OpenMP code breaks at: the region starts, then the task starts. */
    public static List<String> breakpoints() {
        return Stream.concat(REGION_STARTS.stream(), TASK_STARTS.stream()).toList();
    }

    public static boolean isRegionStart(String function) {
        return REGION_STARTS.contains(function);
    }

    public static boolean isTaskStart(String function) {
        return TASK_STARTS.contains(function);
    }

    /** Whether the shared library at {@code path} is the OpenMP runtime, by the name of its real file. */
    public static boolean isRuntimeLibrary(String path) {
        if (path == null || path.isEmpty()) {
            return false;
        }
        try {
            Path file = Path.of(path);
            if (Files.exists(file)) {
                file = file.toRealPath();
            }
            Path name = file.getFileName();
            return name != null && name.toString().startsWith(RUNTIME_LIBRARY_PREFIX);
        } catch (InvalidPathException | java.io.IOException | SecurityException e) {
            return false;
        }
    }

    /**
     * The entry of the region's code at region start {@code function}, the thread being stopped at its
     * first instruction: argument 0, or {@code argv[0]} when the call is {@code __kmp_invoke_microtask} with
     * one of libomp's GOMP wrappers as pkfn (and at least one argument).
     *
     * @param process the process, for the wrapper's symbol and {@code argv[0]}: asked for only at
     *                {@code __kmp_invoke_microtask} (a GNU entry point needs no OMPD)
     * @throws IllegalArgumentException when {@code function} is not a region start
     * @throws OmpdException when {@code argv[0]} cannot be read
     */
    public static long regionEntry(String function, RegisterReader registers, Supplier<AddressSpaceHandle> process) {
        if (!isRegionStart(function)) {
            throw new IllegalArgumentException(function + " is not where libomp starts a region's code");
        }
        long entry = registers.read(argument(PKFN));
        if (function.equals(INVOKE_MICROTASK)) {
            AddressSpaceHandle space = process.get();
            Optional<String> wrapper = GnuWrappers.wrapperAt(space, entry);
            int argc = (int) registers.read(argument(ARGC)); // int argc: the register's low half
            if (wrapper.isPresent() && argc >= 1) {
                long argv = registers.read(argument(ARGV));
                entry = space.at(argv, null, wrapper.get() + " argv[0]").asUnsigned(8);
            }
        }
        return entry;
    }

    /** The entry of the task {@code thread} begins, stopped at a task start: its current task's code. */
    public static long taskEntry(ThreadHandle thread) {
        return thread.currentTask().function();
    }

    /** A source line as the debugger names it: its file (as the debugger spells it) and its 1-based number. */
    public record SourceLine(String file, int line) {}

    /**
     * One stop on a door's way from the entry of a region's or task's code to its first line: where the
     * thread stopped, and the line of the first instruction of the function it stopped in.
     */
    public record CodeStop(SourceLine at, SourceLine functionEntry) {}

    /** What a door does at a stop on its way from the code's entry to the code's first line. */
    public enum CodeMove {
        /** The stop is the code's first line: the step ends here. */
        ARRIVED,
        /** Still on the directive's lines: step ({@code step}, into the functions outlined for it). */
        STEP,
        /** In a function the directive's code calls (a C++ copy constructor for firstprivate): step out of it. */
        FINISH
    }

    /**
     * The move at the last of {@code walk}'s stops on the way to the first line of a region's or task's
     * code: the walk starts at the code's entry (the first instruction of its outlined function, where the
     * thread stopped at a helper breakpoint), each later stop being one move on, out of the runtime.
     *
     * <p>The code's first line is the first line reached that is none of the directive's lines, and the
     * directive's lines are those the compilers give the entries of the functions they outline for it:
     * clang's {@code X.omp_outlined} starts at the {@code #pragma} line and calls
     * {@code X.omp_outlined_debug__}, which starts at the line of the region's {@code {}; gcc's
     * {@code X._omp_fn.N} and clang's {@code .omp_task_entry.} start at the {@code #pragma} line. The code the
     * directive's clauses add (a reduction's private copy set to its initial value, firstprivate copies)
     * carries these lines too, and clang puts it after the {@code {} line: a walk that stopped at the first
     * line other than where it started ended at the {@code {}, and the next step went back to the pragma.
     * (A statement written on the line of the region's {@code {} is therefore stepped past.)
     *
     * <p>The functions outlined for the construct start in the code entry's file, at or below its line;
     * a function that starts elsewhere (a header's, or one above the construct) is one the directive's code
     * calls, such as the copy constructor of a C++ firstprivate, and is stepped out of. (A function of the
     * same file below the construct called by the directive's code, such as a declare-reduction
     * initializer, would be taken for the construct's and its first line shown.)
     */
    public static CodeMove codeMove(List<CodeStop> walk) {
        if (walk.size() < 2) {
            return CodeMove.STEP; // at the entry itself (or nowhere yet)
        }
        SourceLine entry = walk.getFirst().functionEntry();
        SourceLine function = walk.getLast().functionEntry();
        boolean known = entry.line() > 0 && function.line() > 0; // else no function to step out of
        if (known && (!function.file().equals(entry.file()) || function.line() < entry.line())) {
            return CodeMove.FINISH;
        }
        SourceLine at = walk.getLast().at();
        boolean directive = walk.stream().map(CodeStop::functionEntry)
                .filter(start -> start.file().equals(entry.file()) && start.line() >= entry.line())
                .anyMatch(at::equals);
        return at.line() <= 0 || directive ? CodeMove.STEP : CodeMove.ARRIVED;
    }

    /** What a door does at a stop of a step over ({@code next}) that may leave a region's or a task's code. */
    public enum LeaveMove {
        /** The step ends here. */
        ARRIVED,
        /** On a line of the directive whose code the thread left: step over again ({@code next}). */
        NEXT,
        /** In the runtime with the program's code below (the thread that started the region): step out ({@code finish}). */
        FINISH
    }

    /**
     * The move at the last of {@code walk}'s stops of a step over: the walk starts where the step started, each
     * later stop being one move on. A step over the last statement of a region's or a task's code leaves the
     * code, as a step over a function's last line returns to its caller: past the lines the compilers give the
     * end of the functions they outline for the directive (gcc's {@code X._omp_fn.N} and clang's
     * {@code X.omp_outlined} end on the {@code #pragma} line, where they start: a line above the step's start
     * that is the line of the entry of a function the walk stopped in, as {@link #codeMove} knows the
     * directive's lines; gfortran starts its outlined function at an inner directive's line below the first
     * statement, which a step over reaches going forward and stops at), out of the runtime into
     * the function that started the region (the primary thread lands on the first line after the region) or
     * ran the task (the thread that ran it at a taskwait goes back there; an undeferred task's thread goes on
     * after the task's directive). A thread with none of the program's code below the runtime (a worker of the
     * team, a task run in the region's closing barrier) is back in the runtime for good: the step ends there,
     * in the runtime's function that called the code, as gdb's {@code next} ends (its line is the runtime's
     * source, or none).
     *
     * @param inRuntime         whether the last stop is in the runtime's code (or in code without a line)
     * @param programCodeBelow  whether a frame of the program's code (with a line, outside the runtime) is below it
     */
    public static LeaveMove leaveMove(List<CodeStop> walk, boolean inRuntime, boolean programCodeBelow) {
        if (inRuntime) {
            return programCodeBelow ? LeaveMove.FINISH : LeaveMove.ARRIVED;
        }
        if (walk.size() < 2) {
            return LeaveMove.ARRIVED;
        }
        SourceLine at = walk.getLast().at();
        boolean directive = isAbove(at, walk.getFirst().at())
                && walk.stream().map(CodeStop::functionEntry).anyMatch(at::equals);
        return directive ? LeaveMove.NEXT : LeaveMove.ARRIVED;
    }

    /**
     * Whether {@code at} is a line above {@code start} in its file: only such a stop of a step over can be on the
     * directive's line ({@link #leaveMove}); a door needs no function's entry for any other.
     */
    public static boolean isAbove(SourceLine at, SourceLine start) {
        return at.file().equals(start.file()) && at.line() > 0 && at.line() < start.line();
    }

    /** The register of integer argument {@code index} (x86-64 System V). */
    static String argument(int index) {
        return ARGUMENT_REGISTERS.get(index);
    }
}
