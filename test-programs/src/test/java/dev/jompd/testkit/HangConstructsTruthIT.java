package dev.jompd.testkit;

import dev.jompd.testkit.GdbWaitTruth.Run;
import dev.jompd.testkit.GdbWaitTruth.ThreadStack;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait matrix is honest: for every case of {@code hang_constructs} (WaitMatrix), what each thread says it
 * waits in (its facts) is what gdb's backtraces of the core show ({@link GdbWaitTruth}): the innermost run of
 * runtime frames enters libomp at the construct's entry point, called from the line the facts name; a thread
 * that runs a task inside its wait shows the task's wait innermost, the task's entry at its {@code #pragma omp
 * task} line, then its own wait; a straggler or holder is in read() at its line, in no wait; no thread has a
 * second wait on its stack; a barrier waiter's {@code th_ident} has its barrier's kind bits and line; and the
 * threads in the runtime are exactly the recorded ones. Every line fact is
 * checked against the source's text first. No jompd code is involved: this proves the fixture, so that tests of
 * jompd's diagnosis can take its facts as the truth.
 *
 * <p>The runtime is the default one, or {@code $JOMPD_WAITMATRIX_RUNTIME} (a major: 14, 23);
 * {@code JOMPD_WAITMATRIX_BUILD=gcc} runs the gcc build on libomp (through its libgomp alias).
 */
class HangConstructsTruthIT {
    private static final String SOURCE = "hang_constructs.c";
    private static final int RUNTIME = Integer.parseInt(System.getenv().getOrDefault("JOMPD_WAITMATRIX_RUNTIME",
            Integer.toString(Runtimes.DEFAULT_VERSION)));
    private static final boolean GCC = "gcc".equals(System.getenv("JOMPD_WAITMATRIX_BUILD"));
    /** Every entry point of a wait: no thread may have one on its stack beyond the waits its facts name. */
    private static final Set<String> WAIT_ENTRIES = GdbWaitTruth.ENTRIES.values().stream().flatMap(Set::stream)
            .collect(Collectors.toUnmodifiableSet());

    static List<WaitMatrix.Case> cases() {
        return WaitMatrix.cases();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyThreadWaitsWhereItsFactsSay(WaitMatrix.Case matrixCase) {
        StoppedFixture stopped = Fixtures.core(run(matrixCase));
        compare(matrixCase, stopped.facts(), GdbWaitTruth.ofCore(stopped.executable(), stopped.core())).assertAll();
    }

    /**
     * The comparison can fail: facts that lie about a thread, each in a way the source's text does not give away,
     * are caught. A waiter of the for loop that claims the single's implicit barrier (the same entry point, another
     * line); a straggler and a waiter whose LWPs are swapped; a thread that runs the blocked child task claiming
     * to wait in the taskwait itself; a taskwait waiter claiming a barrier.
     */
    @Test
    void theComparisonCatchesFactsThatLie() {
        WaitMatrix.Case forLoop = new WaitMatrix.Case("for", "construct");
        StoppedFixture stopped = Fixtures.core(run(forLoop));
        Map<Long, ThreadStack> stacks = GdbWaitTruth.ofCore(stopped.executable(), stopped.core());
        Facts facts = stopped.facts();
        assertThat(compare(forLoop, facts, stacks).errorsCollected()).as("the truth itself").isEmpty();
        int single = lineOf("#pragma omp single");
        assertLieCaught(forLoop, lie(facts, Map.of("thread.0.wait", "implicit_single", "thread.0.wait_line",
                Integer.toString(single))), stacks, "the function and line that call the runtime for implicit_single");
        Facts.ThreadFacts straggler = facts.threads().stream().filter(t -> t.role().equals("straggler")).findFirst()
                .orElseThrow();
        Facts.ThreadFacts waiter = facts.thread(straggler.index() == 0 ? 1 : 0);
        assertLieCaught(forLoop, lie(facts, Map.of("thread." + straggler.index() + ".lwp", Long.toString(waiter.lwp()),
                "thread." + waiter.index() + ".lwp", Long.toString(straggler.lwp()))), stacks, "blocked in read()");

        WaitMatrix.Case taskwait = new WaitMatrix.Case("taskwait", "construct");
        stopped = Fixtures.core(run(taskwait));
        stacks = GdbWaitTruth.ofCore(stopped.executable(), stopped.core());
        facts = stopped.facts();
        assertThat(compare(taskwait, facts, stacks).errorsCollected()).as("the truth itself").isEmpty();
        Facts.ThreadFacts runner = facts.threads().stream().filter(t -> t.role().equals("runs_task")).findFirst()
                .orElseThrow();
        Facts.ThreadFacts waiting = facts.thread(0);
        assertLieCaught(taskwait, lie(facts, Map.of("thread." + runner.index() + ".task_wait", "taskwait",
                "thread." + runner.index() + ".task_wait_line", waiting.get("wait_line"),
                "thread." + runner.index() + ".task_wait_function", waiting.get("wait_function"))), stacks,
                "the entry point of taskwait");
        int barrier = lineOf("#pragma omp barrier");
        assertLieCaught(taskwait, lie(facts, Map.of("thread.0.wait", "barrier", "thread.0.wait_line",
                Integer.toString(barrier), "thread.0.wait_function", "in_construct")), stacks, "the entry point of barrier");
    }

    /** gdb attached to the live process (held at the marker) sees what it sees in a core of the same case. */
    @Test
    void aLiveProcessShowsTheSameWaits() {
        WaitMatrix.Case taskwaitInTask = new WaitMatrix.Case("taskwait", "task");
        try (LiveFixture live = Fixtures.live(run(taskwaitInTask))) {
            compare(taskwaitInTask, live.facts(), GdbWaitTruth.ofProcess(live.pid())).assertAll();
            assertThat(live.isAlive()).as("gdb detached and left the process as it was").isTrue();
        }
    }

    private static FixtureRun run(WaitMatrix.Case matrixCase) {
        FixtureRun run = matrixCase.run(GCC ? Fixture.HANG_CONSTRUCTS_GCC : Fixture.HANG_CONSTRUCTS).onRuntime(RUNTIME);
        return GCC ? run.withEnvironment("LD_LIBRARY_PATH", Runtimes.gompAliasDirectory(RUNTIME).toString()) : run;
    }

    private static void assertLieCaught(WaitMatrix.Case matrixCase, Facts lie, Map<Long, ThreadStack> stacks, String caughtBy) {
        List<Throwable> errors = compare(matrixCase, lie, stacks).errorsCollected();
        assertThat(errors).as("a lie about " + matrixCase).isNotEmpty();
        assertThat(errors.stream().map(Throwable::getMessage).filter(message -> message.contains(caughtBy)))
                .as("a lie about " + matrixCase + " caught by \"" + caughtBy + "\": " + errors).isNotEmpty();
    }

    /** The facts with some keys changed (written beside the cores, read back). */
    private static Facts lie(Facts facts, Map<String, String> changes) {
        java.util.Properties properties = facts.asProperties();
        changes.forEach(properties::setProperty);
        Path file = Fixtures.workDirectory("hang-constructs-lies").resolve("lie-" + System.nanoTime() + ".properties");
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "facts changed by HangConstructsTruthIT");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Facts.read(file);
    }

    private static int lineOf(String text) {
        List<String> source = sourceLines(Fixture.HANG_CONSTRUCTS);
        for (int i = 0; i < source.size(); i++) {
            if (source.get(i).strip().equals(text)) {
                return i + 1;
            }
        }
        throw new AssertionError("no line of " + SOURCE + " is " + text);
    }

    /** Every difference between the facts and gdb's stacks of one case, collected. */
    private static SoftAssertions compare(WaitMatrix.Case matrixCase, Facts facts, Map<Long, ThreadStack> stacks) {
        List<String> source = sourceLines(GCC ? Fixture.HANG_CONSTRUCTS_GCC : Fixture.HANG_CONSTRUCTS);
        SoftAssertions softly = new SoftAssertions();
        int teams = (int) facts.number("hang.teams");
        int teamSize = (int) facts.number("hang.team_size");
        softly.assertThat(facts.get("hang.construct") + " " + facts.get("hang.where")).isEqualTo(matrixCase.toString());
        softly.assertThat(facts.threads().stream().map(Facts.ThreadFacts::role).sorted().toList())
                .as("the roles of the recorded threads").isEqualTo(expectedRoles(matrixCase, teams, teamSize));
        Set<Long> inRuntime = new TreeSet<>();
        stacks.forEach((lwp, stack) -> {
            if (!stack.runtimeRuns().isEmpty()) {
                inRuntime.add(lwp);
            }
        });
        softly.assertThat(inRuntime).as("the threads with runtime frames are the recorded OpenMP threads")
                .isEqualTo(facts.threads().stream().map(Facts.ThreadFacts::lwp).collect(Collectors.toCollection(TreeSet::new)));
        for (Facts.ThreadFacts thread : facts.threads()) {
            ThreadStack stack = stacks.get(thread.lwp());
            if (stack == null) {
                softly.fail(thread + " is not a thread of the core");
                continue;
            }
            checkThread(softly, source, facts.find("hang.critical.name").map(name -> "(" + name + ")").orElse(""),
                    thread, stack);
        }
        return softly;
    }

    /**
     * The roles of a case, sorted: per case team one straggler (or holder) and waiters, except where tasks run:
     * taskwait/taskgroup in the construct, the blocked child's thread; in a task, T's thread and, for
     * taskwait/taskgroup, the blocked child's. Nested adds outer thread 1, a waiter.
     */
    private static List<String> expectedRoles(WaitMatrix.Case matrixCase, int teams, int teamSize) {
        boolean held = List.of("critical", "critical_named", "lock", "nest_lock").contains(matrixCase.construct());
        boolean children = List.of("taskwait", "taskgroup").contains(matrixCase.construct());
        List<String> roles = new ArrayList<>();
        for (int team = 0; team < teams; team++) {
            List<String> special = matrixCase.where().equals("task")
                    ? (children ? List.of("runs_task", "runs_task") : List.of("holder", "runs_task"))
                    : List.of(held ? "holder" : children ? "runs_task" : "straggler");
            roles.addAll(special);
            for (int i = special.size(); i < teamSize; i++) {
                roles.add("waiter");
            }
        }
        if (matrixCase.where().equals("nested")) {
            roles.add("waiter");
        }
        return roles.stream().sorted().toList();
    }

    /** One thread: its waits, innermost first, against its runs; nothing else on its stack waits. */
    private static void checkThread(SoftAssertions softly, List<String> source, String criticalName,
                                    Facts.ThreadFacts thread, ThreadStack stack) {
        String who = thread + " " + thread.role() + "\n" + stack;
        List<Run> runs = stack.runs();
        softly.assertThat(thread.get("wait").equals("none")).as(who + "\nonly a straggler or holder waits in no construct")
                .isEqualTo(List.of("straggler", "holder").contains(thread.role()));
        softly.assertThat(thread.find("task_line").isPresent()).as(who + "\nonly a thread that runs a task has task facts")
                .isEqualTo(thread.role().equals("runs_task"));
        softly.assertThat(stack.leading()).as(who + "\nthe thread is innermost outside the program").isEmpty();
        thread.find("holds").ifPresent(held -> softly.assertThat(text(source, (int) thread.number("holds_line")))
                .as(who + "\nthe line that took what the holder holds").contains(statement(held)));
        int next = 0;
        if (thread.role().equals("runs_task")) {
            checkWait(softly, source, criticalName, who + "\n(the task's wait)", thread, "task_wait", runs, 0);
            int taskLine = (int) thread.number("task_line");
            softly.assertThat(text(source, taskLine).strip()).as(who + "\ntask_line").isEqualTo("#pragma omp task");
            // the task's outermost frame: clang's entry thunk at the task construct's line; gcc has none, its
            // outlined task body (named after the function with the construct) is at the task's statement
            String expected = GCC ? thread.get("task_function") + "._omp_fn.*:" + (taskLine + 1)
                    : "\\.omp_task_entry\\..*:" + taskLine;
            softly.assertThat(runs.isEmpty() || runs.get(0).callers().isEmpty() ? "(none)"
                    : runs.get(0).callers().getLast().function() + ":" + runs.get(0).callers().getLast().line())
                    .as(who + "\nthe task's outermost frame and its line").matches(expected);
            next = 1;
        }
        checkWait(softly, source, criticalName, who, thread, "wait", runs, next);
        Long barrierBits = GdbWaitTruth.Ident.BARRIER_FLAGS.get(thread.get("wait"));
        if (barrierBits != null && next == 0) { // __kmpc_barrier stored its ident_t in th_ident before it waited
            String ident = stack.ident().map(i -> "0x" + Long.toHexString(i.barrierBits()) + " at line " + i.line())
                    .orElse("(none)");
            // gcc's GOMP_barrier, GOMP_sections_end pass libomp's own ident: no barrier kind, no line
            softly.assertThat(ident).as(who + "\nth_ident's barrier bits and line")
                    .isEqualTo(GCC ? "0x0 at line 0" : "0x" + Long.toHexString(barrierBits) + " at line " + thread.get("wait_line"));
        }
        for (int i = next + 1; i < runs.size(); i++) {
            Optional<String> entry = runs.get(i).entry();
            softly.assertThat(entry.filter(WAIT_ENTRIES::contains)).as(who + "\nno further wait on the stack: run " + i)
                    .isEmpty();
        }
    }

    /**
     * Run {@code index} is the thread's wait {@code key} ({@code wait} or {@code task_wait}): entered at that
     * construct's entry point from the function and line the facts name (the read() in block_for_good for
     * {@code none}).
     */
    private static void checkWait(SoftAssertions softly, List<String> source, String criticalName, String who,
                                  Facts.ThreadFacts thread, String key, List<Run> runs, int index) {
        String wait = thread.get(key);
        int line = (int) thread.number(key + "_line");
        Optional<Integer> callLine = thread.find(key + "_call_line").map(Integer::parseInt);
        softly.assertThat(text(source, line)).as(who + "\nthe line of " + wait)
                .contains(statement(wait) + (wait.equals("critical") ? criticalName : ""));
        callLine.ifPresent(call -> softly.assertThat(text(source, call)).as(who + "\nthe call line of " + wait)
                .contains("end of the taskgroup"));
        if (runs.size() <= index) {
            softly.fail(who + "\nhas no run " + index + " for " + wait);
            return;
        }
        Run run = runs.get(index);
        String function = thread.get(key + "_function");
        String place = function + ":" + (GCC ? gccCallLine(source, wait, line, callLine) : callLine.orElse(line));
        String caller = run.caller().map(f -> (f.function().startsWith(function + ".") ? function : f.function()) + ":"
                + f.line() + (Path.of(f.file()).getFileName().toString().equals(SOURCE) ? "" : " in " + f.file()))
                .orElse("(none)");
        if (wait.equals("none")) {
            softly.assertThat(run.inRuntime()).as(who + "\nblocked in the C library, not the runtime").isFalse();
            softly.assertThat(run.innermost()).as(who + "\nblocked in read()").contains("read");
            softly.assertThat(caller).as(who + "\nthe read()'s caller").isEqualTo(place);
            return;
        }
        softly.assertThat(run.inRuntime()).as(who + "\nrun " + index + " is in the runtime").isTrue();
        boolean workerAtEndOfRegion = wait.equals("implicit_parallel") && thread.threadNum() != 0;
        if (workerAtEndOfRegion) { // a worker that arrived at the end of its region: no frame of the program under it
            softly.assertThat(run.entry().orElse("-")).as(who + "\na worker at the end of its region")
                    .isIn("__kmp_join_barrier", "__kmp_fork_barrier");
            softly.assertThat(caller).as(who + "\na worker at the end of its region").isEqualTo("(none)");
        } else {
            softly.assertThat(run.entry().orElse("-")).as(who + "\nthe entry point of " + wait)
                    .isIn(GdbWaitTruth.ENTRIES.get(wait));
            softly.assertThat(caller).as(who + "\nthe function and line that call the runtime for " + wait)
                    .isEqualTo(place);
        }
    }

    /**
     * Where gcc 12 (-O0) has the call of a wait in its line table, by the source's text. The calls of the
     * implicit barriers of for, sections and single, of the end of a taskgroup and of the start of an ordered
     * region have no row of their own: gdb shows the row before them, the last statement before the call
     * (before the construct's closing brace; before the ordered construct). The others are where clang has them.
     */
    private static int gccCallLine(List<String> source, String wait, int line, Optional<Integer> clangCallLine) {
        return switch (wait) {
            case "implicit_for", "implicit_sections", "implicit_single" ->
                    lastStatementBefore(source, closingLine(source, line + 1));
            case "taskgroup" -> lastStatementBefore(source, clangCallLine.orElseThrow());
            case "ordered" -> lastStatementBefore(source, line);
            default -> clangCallLine.orElse(line);
        };
    }

    /** The last line before {@code line} that holds a statement (not a brace, a directive or a comment alone). */
    private static int lastStatementBefore(List<String> source, int line) {
        for (int before = line - 1; before >= 1; before--) {
            String text = source.get(before - 1).strip();
            if (!text.isEmpty() && !text.equals("}") && !text.equals("{") && !text.startsWith("#")
                    && !text.startsWith("/*") && !text.startsWith("*")) {
                return before;
            }
        }
        throw new AssertionError("no statement before " + SOURCE + ":" + line);
    }

    /** The line of the brace that closes the block opened on line {@code first} (1-based). */
    private static int closingLine(List<String> source, int first) {
        int depth = 0;
        for (int line = first; line <= source.size(); line++) {
            for (char c : source.get(line - 1).toCharArray()) {
                if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    return line;
                }
            }
        }
        throw new AssertionError("no block opens at " + SOURCE + ":" + first);
    }

    /** What the line of a wait says. */
    private static String statement(String wait) {
        return switch (wait) {
            case "barrier" -> "#pragma omp barrier";
            case "implicit_for" -> "#pragma omp for";
            case "implicit_sections" -> "#pragma omp sections";
            case "implicit_single" -> "#pragma omp single";
            case "implicit_parallel" -> "#pragma omp parallel";
            case "taskwait" -> "#pragma omp taskwait";
            case "taskgroup" -> "#pragma omp taskgroup";
            case "ordered" -> "#pragma omp ordered";
            case "critical" -> "#pragma omp critical";
            case "lock" -> "omp_set_lock(";
            case "nest_lock" -> "omp_set_nest_lock(";
            case "none" -> "read(fd";
            default -> throw new AssertionError("no such wait in the facts: " + wait);
        };
    }

    private static String text(List<String> source, int line) {
        return line >= 1 && line <= source.size() ? source.get(line - 1) : "(no line " + line + ")";
    }

    private static List<String> sourceLines(Fixture fixture) {
        try {
            return new ArrayList<>(Files.readAllLines(SourceLines.source(fixture, SOURCE)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
