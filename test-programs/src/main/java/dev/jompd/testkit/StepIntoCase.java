package dev.jompd.testkit;

import java.util.List;
import java.util.Optional;

/**
 * The cases of stepping into the OpenMP code a line starts, run through every door that steps (gdb's
 * {@code ompd step}, the DAP's stepIn): where the program stops first, how it gets to the line, how many
 * step-intos, and the one line the thread must end up on (the code's first statement), then the one line
 * a step over from there reaches. Lines are found in the fixtures' sources by their text (never from
 * jompd); where the thread stopped is the debugger's own frame.
 */
public enum StepIntoCase {
    /**
     * From a {@code #pragma omp parallel ... reduction} line (clang: {@code __kmp_invoke_microtask}) into the
     * region's first statement: past the region's {@code {} and the reduction's set-up, which clang puts on
     * the pragma's line after the {@code {}.
     */
    PARALLEL(Fixture.PARALLEL, List.of("2"), Optional.empty(), "unsigned long long sum = 0;", 1, 1,
            "main.omp_outlined_debug__", "int tid = omp_get_thread_num();", "if (omp_get_num_threads() != n)"),
    /**
     * Nested regions (clang, teams of 2 and 2): from main's call region(0) into region(0) (a plain call; its
     * line is the outer region's pragma), into the outer region's code, a plain step to its call
     * region(depth + 1), into region(1), and into the inner region's code.
     */
    NESTED_PARALLEL(Fixture.NESTED, List.of("2", "2"), Optional.empty(), "  region(0);", 0, 5,
            "region.omp_outlined_debug__", "if (depth + 1 < levels)", "      innermost();"),
    /**
     * From a host {@code #pragma omp teams ... reduction} line (no target: libomp's teams on the host) into the
     * initial thread's team's first statement, past the {@code {} and the reduction's set-up as for PARALLEL.
     */
    TEAMS(Fixture.TEAMS, List.of("2", "2"), Optional.empty(), "unsigned long long sum = 0;", 1, 1,
            "run.omp_outlined_debug__", "if (omp_get_num_teams() != nteams)", "int team = omp_get_team_num();"),
    /**
     * C++ firstprivate: the copies are made on the directive's line by copy constructors (std::vector's in
     * its header, Tally's above main), which the step goes through and out of, to the first statement.
     */
    CXX_FIRSTPRIVATE(Fixture.CXX_FIRSTPRIVATE, List.of(), Optional.empty(), "long sum = 0;", 1, 1,
            "main.omp_outlined_debug__", "int k = omp_get_thread_num();", "sum += (long)cells.size() + tally.copies;"),
    /**
     * From a taskwait into the task this thread runs there (ompd_bp_task_begin, the entry from OMPD): a
     * one-statement task, whose code ends on its directive's line (the task's end, as a function's closing
     * brace), where the step over after its statement goes.
     */
    TASK_AT_TASKWAIT(Fixture.TASKS, List.of("10", "4"), Optional.empty(), null, 0, 1,
            ".omp_outlined.", "        task_a();", "#pragma omp task depend(out : dep)") {
        @Override
        int breakLine() {
            return line("/* Only A is ready") + 1;
        }

        /** jompd's Step Over leaves the task's code: back to the taskwait that ran it. */
        @Override
        public int stepOverLine() {
            return breakLine();
        }
    },
    /** From thread 1's taskwait into its task T1, a block of statements. */
    TASK_BLOCK(Fixture.TASKS, List.of("10", "4"), Optional.empty(), null, 0, 1,
            ".omp_outlined..23", "if (omp_get_thread_num() != 1)", "fx_thread_facts(1, \"task\");") {
        @Override
        int breakLine() {
            return line("fx_thread_put(1, \"implicit_task\", \"taskwait\");") + 3;
        }
    },
    /** From an undeferred task's pragma ({@code if(0)}: run at once) into its body, a single statement. */
    UNDEFERRED_TASK(Fixture.TASKS, List.of("10", "4"), Optional.empty(), "fx_put(\"task.B.in_final\"", 1, 1,
            ".omp_outlined..46", "  task_c();", "#pragma omp task final(1) mergeable if(0)") {
        /** jompd's Step Over leaves the task's code: on in task_b after the task's directive, its closing brace. */
        @Override
        public int stepOverLine() {
            return line("#pragma omp task final(1) mergeable if(0)") + 2;
        }
    },
    /**
     * gfortran on libomp: GOMP_parallel calls the outlined function itself; its call is on the line after the
     * directive's set-up, so the first step reaches it and the second goes in. gfortran gives the outlined
     * function the inner directive's line (75), before the first statement (74).
     */
    FORTRAN_PARALLEL(Fixture.NESTED_FORTRAN, List.of("2", "2"), Optional.empty(), "call omp_set_max_active_levels(2)", 1, 2,
            "MAIN__._omp_fn.0", "outer team size differs from S1", "!$omp parallel num_threads(s2)"),
    /**
     * A gcc program built for GCC's libgomp, run on jompd's libomp (gdb's {@code ompd run}, the DAP's
     * launch): from region()'s first line, its {@code #pragma omp parallel} (GOMP_parallel), into the
     * outlined function.
     */
    GCC_PARALLEL(Fixture.NESTED_GCC, List.of("2"), Optional.of("region"), null, 0, 1,
            "region._omp_fn.0", "if (depth + 1 < levels)", "      innermost();"),
    /** gcc: as NESTED_PARALLEL, GOMP_parallel in region(1) called from the outer region's code. */
    GCC_NESTED_PARALLEL(Fixture.NESTED_GCC, List.of("2", "2"), Optional.empty(), "  region(0);", 0, 5,
            "region._omp_fn.0", "if (depth + 1 < levels)", "      innermost();"),
    /** gcc: from thread 1's taskwait into its task T1 (libomp's GOMP_task), a block of statements. */
    GCC_TASK_BLOCK(Fixture.TASKS_GCC, List.of("10", "4"), Optional.empty(), null, 0, 1,
            "main._omp_fn.3", "if (omp_get_thread_num() != 1)", "fx_thread_facts(1, \"task\");") {
        @Override
        int breakLine() {
            return line("fx_thread_put(1, \"implicit_task\", \"taskwait\");") + 3;
        }
    },
    /** A line that starts no OpenMP code (task C's call of task_c): a plain call is stepped into, as gdb's step does. */
    PLAIN_CALL(Fixture.TASKS, List.of("10", "4"), Optional.empty(), "  task_c();", 0, 1,
            "task_c", "if (!omp_in_final())", "fx_thread_facts(0, \"marker\");");

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
    private final String function;
    private final String firstLineText;
    private final String nextLineText;

    StepIntoCase(Fixture fixture, List<String> arguments, Optional<String> breakFunction, String breakLineText,
                 int nexts, int steps, String function, String firstLineText, String nextLineText) {
        this.fixture = fixture;
        this.arguments = arguments;
        this.breakFunction = breakFunction;
        this.breakLineText = breakLineText;
        this.nexts = nexts;
        this.steps = steps;
        this.function = function;
        this.firstLineText = firstLineText;
        this.nextLineText = nextLineText;
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

    /** The line the step into must end on: the first statement of the code, found by its text. */
    public int firstLine() {
        return line(firstLineText);
    }

    /** The line a step over ({@code next}) from {@link #firstLine} must end on, found by its text. */
    public int nextLine() {
        return line(nextLineText);
    }

    /**
     * Throws an AssertionError unless {@code where} is exactly the case's first line, in the function the
     * compiler made for the code (the called function for a plain call), in the fixture's source.
     */
    public void check(Where where) {
        String name = where.function().contains("(") // gdb's C++ names carry their parameters
                ? where.function().substring(0, where.function().indexOf('(')) : where.function();
        where.require(new Where(name, where.file(), where.line()).equals(new Where(function, fixture.source(), firstLine())),
                "at " + function + " " + fixture.source() + ":" + firstLine() + " (" + firstLineText.strip() + ")");
    }

    /** Throws an AssertionError unless {@code where}, after gdb's {@code next} from the first line, is the case's next line. */
    public void checkNext(Where where) {
        where.require(where.file().equals(fixture.source()) && where.line() == nextLine(),
                "the step over at " + fixture.source() + ":" + nextLine() + " (" + nextLineText.strip() + ")");
    }

    /**
     * The line jompd's Step Over (the DAP's next) from {@link #firstLine} ends on: gdb's {@link #nextLine}, but
     * where that is the end of a task's code on its directive's line, the line the thread goes on at once it
     * has left the task's code (ompd-core's {@code RuntimeEntryPoints.leaveMove}).
     */
    public int stepOverLine() {
        return nextLine();
    }

    /** Throws an AssertionError unless {@code where}, after jompd's Step Over from the first line, is {@link #stepOverLine}. */
    public void checkStepOver(Where where) {
        where.require(where.file().equals(fixture.source()) && where.line() == stepOverLine(),
                "jompd's step over at " + fixture.source() + ":" + stepOverLine());
    }
}
