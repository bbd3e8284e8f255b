package dev.jompd.testkit;

import java.util.List;
import java.util.Optional;

/**
 * The cases of stepping into the OpenMP code a line starts, run through every door that steps (gdb's
 * {@code ompd step}, the DAP's stepIn): where the program stops first, how it gets to the line, how many
 * step-intos, and where the thread must end up. Lines are found in the fixtures' sources by their text;
 * where the thread stopped is the debugger's own frame.
 */
public enum StepIntoCase {
    /** From a {@code #pragma omp parallel} line (clang: {@code __kmp_invoke_microtask}) into the region's body. */
    PARALLEL(Fixture.PARALLEL, List.of("2"), Optional.empty(), "unsigned long long sum = 0;", 1, 1) {
        @Override
        public void check(Where where) {
            int pragma = line("#pragma omp parallel num_threads(n)");
            int regionEnd = line("unsigned long long expect =");
            where.require(where.function().contains("omp_outlined"), "in the region's outlined function");
            where.require(where.file().equals("parallel.c"), "in parallel.c");
            where.require(where.line() >= pragma && where.line() < regionEnd, "in the region's lines " + pragma + ".." + (regionEnd - 1));
        }
    },
    /** From a taskwait into the task this thread runs there (ompd_bp_task_begin, the entry from OMPD). */
    TASK_AT_TASKWAIT(Fixture.TASKS, List.of("10", "4"), Optional.empty(), null, 0, 1) {
        @Override
        int breakLine() {
            return line("/* Only A is ready") + 1;
        }

        @Override
        public void check(Where where) {
            where.require(where.line() == line("        task_a();"), "at task A's body, task_a();");
        }
    },
    /** From an undeferred task's pragma ({@code if(0)}: run at once) into its body. */
    UNDEFERRED_TASK(Fixture.TASKS, List.of("10", "4"), Optional.empty(), "fx_put(\"task.B.in_final\"", 1, 1) {
        @Override
        public void check(Where where) {
            where.require(where.line() == line("#pragma omp task final(1) mergeable if(0)") + 1, "at task C's body, task_c();");
        }
    },
    /**
     * gfortran on libomp: GOMP_parallel calls the outlined function itself; its call is on the line after the
     * directive's set-up, so the first step reaches it and the second goes in.
     */
    FORTRAN_PARALLEL(Fixture.NESTED_FORTRAN, List.of("2", "2"), Optional.empty(), "call omp_set_max_active_levels(2)", 1, 2) {
        @Override
        public void check(Where where) {
            where.require(where.function().contains("_omp_fn"), "in the region's outlined function");
            where.require(where.line() == line("outer team size differs from S1"), "at the region's first line");
        }
    },
    /**
     * A gcc program built for GCC's libgomp, run on jompd's libomp (gdb's {@code ompd run}, the DAP's
     * launch): from region()'s first line, its {@code #pragma omp parallel} (GOMP_parallel), into the
     * outlined function.
     */
    GCC_PARALLEL(Fixture.NESTED_GCC, List.of("2"), Optional.of("region"), null, 0, 1) {
        @Override
        public void check(Where where) {
            int pragma = line("#pragma omp parallel num_threads(sizes[depth])");
            where.require(where.function().startsWith("region._omp_fn.0"), "in region._omp_fn.0");
            where.require(where.file().equals("nested.c"), "in nested.c");
            where.require(where.line() >= pragma && where.line() <= line("innermost();"), "in the region's body");
        }
    },
    /** A line that starts no OpenMP code: a plain call is stepped into, as gdb's step does. */
    PLAIN_CALL(Fixture.TASKS, List.of("10", "4"), Optional.empty(), "        task_a();", 0, 1) {
        @Override
        public void check(Where where) {
            where.require(where.function().equals("task_a"), "in task_a");
        }
    };

    /** Where a step left the thread: its innermost frame's function, source file name and line. */
    public record Where(String function, String file, int line) {
        void require(boolean holds, String what) {
            if (!holds) {
                throw new AssertionError("the step should end " + what + ", but ended in " + this);
            }
        }
    }

    private final Fixture fixture;
    private final List<String> arguments;
    private final Optional<String> breakFunction;
    private final String breakLineText;
    private final int nexts;
    private final int steps;

    StepIntoCase(Fixture fixture, List<String> arguments, Optional<String> breakFunction, String breakLineText,
                 int nexts, int steps) {
        this.fixture = fixture;
        this.arguments = arguments;
        this.breakFunction = breakFunction;
        this.breakLineText = breakLineText;
        this.nexts = nexts;
        this.steps = steps;
    }

    public Fixture fixture() {
        return fixture;
    }

    /** The program's arguments. */
    public List<String> arguments() {
        return arguments;
    }

    /** Whether the program must run on jompd's libomp (built for GCC's libgomp). */
    public boolean needsJompdRuntime() {
        return fixture.toolchain() == Fixture.Toolchain.GCC;
    }

    /** The function to break at first, when the case starts at a function rather than a line. */
    public Optional<String> breakFunction() {
        return breakFunction;
    }

    /** The source file of the line to break at. */
    public String breakFile() {
        return fixture.source();
    }

    String breakLineText() {
        return breakLineText;
    }

    /** The line to break at first (when there is no {@link #breakFunction}). */
    int breakLine() {
        return line(breakLineText());
    }

    /** {@code FILE:LINE}, or the function, where the program stops first. */
    public String breakLocation() {
        return breakFunction.orElseGet(() -> breakFile() + ":" + breakLine());
    }

    /** The line where the program stops first, or 0 when it stops at a {@link #breakFunction}. */
    public int breakLineNumber() {
        return breakFunction.isPresent() ? 0 : breakLine();
    }

    /** How many steps over ({@code next}) take the thread from the breakpoint to the line stepped into. */
    public int nexts() {
        return nexts;
    }

    /** How many step-intos, the last one's end being checked. */
    public int steps() {
        return steps;
    }

    /** The 1-based number of the first line of the case's source that contains {@code text}. */
    int line(String text) {
        return SourceLines.lineOf(fixture, fixture.source(), text);
    }

    /** Throws an AssertionError saying where the step should have ended when {@code where} is not there. */
    public abstract void check(Where where);
}
