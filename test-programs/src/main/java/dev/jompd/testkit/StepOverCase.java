package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * The cases of stepping over ({@code next}) the last statement of a parallel region's code, run through every
 * door that steps over (gdb's {@code ompd next}, the DAP's next): nested.c with one level of 2 threads, stopped
 * at {@code innermost();} by the thread the case names. The step leaves the region: never on the region's
 * {@code #pragma} line (where both compilers put the end of the function they outline). The primary thread
 * goes on in region(), on its first line after the region (its closing brace); a worker, with none of the
 * program's code below, ends in the runtime's function that called the region's code (the first frame below
 * the fixture's in its stack at the breakpoint, as the debugger shows it). clang stops on the region's own
 * closing brace on the way; gcc has none. Lines are found in the fixture's source by their text.
 */
public enum StepOverCase {
    CLANG_PRIMARY(Fixture.NESTED, true),
    CLANG_WORKER(Fixture.NESTED, false),
    GCC_PRIMARY(Fixture.NESTED_GCC, true),
    GCC_WORKER(Fixture.NESTED_GCC, false);

    /** The fixture's source file, the only one whose lines a landing names. */
    public static final String SOURCE = "nested.c";

    private final Fixture fixture;
    private final boolean primary;

    StepOverCase(Fixture fixture, boolean primary) {
        this.fixture = fixture;
        this.primary = primary;
    }

    public Fixture fixture() {
        return fixture;
    }

    /** Whether the thread stepped is the region's primary thread (the one that started it), not a worker. */
    public boolean primary() {
        return primary;
    }

    /** The program's arguments: one level of 2 threads. */
    public List<String> arguments() {
        return List.of("2");
    }

    /** Whether the program must run on jompd's libomp (built for GCC's libgomp). */
    public boolean needsJompdRuntime() {
        return fixture.toolchain() == Fixture.Toolchain.GCC;
    }

    /** The line to break at: the region's last statement, {@code innermost();}. */
    public int breakLine() {
        return SourceLines.lineOf(fixture, SOURCE, "      innermost();");
    }

    /** The region's directive's line, where no step over may end. */
    public int pragmaLine() {
        return SourceLines.lineOf(fixture, SOURCE, "#pragma omp parallel num_threads(sizes[depth])");
    }

    /** The function the compiler outlined the region's code into, where the thread stops at {@link #breakLine}. */
    public String outlinedFunction() {
        return fixture.toolchain() == Fixture.Toolchain.GCC ? "region._omp_fn.0" : "region.omp_outlined_debug__";
    }

    /**
     * Where each step over must end, in order: frames of the fixture's source by function, file and line,
     * the runtime's by function alone ({@code Where(function, "", 0)}).
     *
     * @param runtimeCaller the function of the first frame below the fixture's in the thread's stack at the breakpoint
     */
    public List<StepIntoCase.Where> landings(String runtimeCaller) {
        List<StepIntoCase.Where> landings = new ArrayList<>();
        if (fixture.toolchain() != Fixture.Toolchain.GCC) {
            landings.add(new StepIntoCase.Where(outlinedFunction(), SOURCE, breakLine() + 1)); // the region's closing brace
        }
        landings.add(primary ? new StepIntoCase.Where("region", SOURCE, regionEnd())
                : new StepIntoCase.Where(runtimeCaller, "", 0));
        return landings;
    }

    /** region()'s closing brace: the first line after the directive that is exactly "}". */
    private int regionEnd() {
        try {
            List<String> lines = Files.readAllLines(SourceLines.source(fixture, SOURCE));
            for (int i = pragmaLine(); i < lines.size(); i++) {
                if (lines.get(i).equals("}")) {
                    return i + 1;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("no closing brace after the region in " + SOURCE);
    }
}
