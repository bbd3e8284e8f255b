package dev.jompd.libompd;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * No debugger: an OpenMP program (src/test/c/ompd_driver.c, libomp 19 with OMPD) inspects itself inside nested
 * regions through jompd's libompd.so and then LLVM's, with callbacks over its own memory, calling every routine
 * on every kind of handle, with bad arguments too. The answers are equal, except where LLVM's library is known to
 * be wrong or incomplete — each such difference is checked on its own — and they agree with what the program's
 * omp_* calls say. Garbage handles, released handles and calls after ompd_finalize run on jompd's only (they
 * crash LLVM's): an rc, never a crash.
 */
class OmpdDriverIT {
    private static final Path JOMPD_LIBRARY = Path.of("target/lib/libompd.so").toAbsolutePath();
    private static final Path DRIVER_SOURCE = Path.of("src/test/c/ompd_driver.c").toAbsolutePath();
    /** OpenMP 5.1 states libomp's header has and LLVM's library does not enumerate. */
    private static final List<String> STATES_ONLY_JOMPD = List.of("ompt_state_wait_barrier_implementation",
            "ompt_state_wait_barrier_teams");

    private static Path runtime;

    @TempDir
    static Path work;

    @BeforeAll
    static void requirements() {
        assumeTrue(Commands.available("clang-19"), "clang-19 is not installed");
        assumeTrue(Files.isRegularFile(JOMPD_LIBRARY), JOMPD_LIBRARY + " is not built (mvn package builds it)");
        runtime = Runtimes.prefix(19);
        assumeTrue(Files.isRegularFile(runtime.resolve("lib/libompd.so")), "no LLVM libompd.so in " + runtime);
    }

    /** The driver built once, and one run of it: its TRUTH lines and each library's answers. */
    private record Run(Map<String, String> truth, Map<String, String> jompd, Map<String, String> llvm,
                       List<String> printed) {}

    private static synchronized Path driver() throws IOException {
        Path driver = work.resolve("ompd_driver");
        if (!Files.isExecutable(driver)) {
            Commands.Result build = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-O0", "-Wall", "-Wextra",
                    "-Werror", "-I" + runtime.resolve("include"), "-L" + runtime.resolve("lib"),
                    "-Wl,-rpath," + runtime.resolve("lib"), "-o", driver.toString(), DRIVER_SOURCE.toString(), "-ldl",
                    "-lpthread"), Map.of(), work, Duration.ofMinutes(2));
            assertThat(build.exitCode()).as(build.output()).isZero();
        }
        return driver;
    }

    private static Run run(String apiVersion, Path... libraries) throws IOException {
        return run(apiVersion, Map.of(), libraries);
    }

    private static Run run(String apiVersion, Map<String, String> more, Path... libraries) throws IOException {
        List<String> command = new ArrayList<>(List.of(driver().toString()));
        for (Path library : libraries) {
            command.add(library.toString());
        }
        Map<String, String> environment = new java.util.HashMap<>(Map.of("OMP_DEBUG", "enabled", "OMPD_DRIVER_API",
                apiVersion, "XDG_CACHE_HOME", work.resolve("cache").toString()));
        environment.putAll(more);
        Commands.Result run = Commands.run(command, environment, work, Duration.ofMinutes(2));
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("DONE").doesNotContain("dlopen failed");
        Map<String, String> truth = new LinkedHashMap<>();
        Map<String, String> jompd = new LinkedHashMap<>();
        Map<String, String> llvm = new LinkedHashMap<>();
        List<String> printed = new ArrayList<>();
        for (String line : run.output().lines().toList()) {
            if (line.startsWith("PRINT ")) {
                printed.add(line.substring(6));
            }
            String[] parts = line.split(" ", 3);
            if (parts.length < 2) {
                continue;
            }
            String rest = parts.length > 2 ? parts[2] : "";
            switch (parts[0]) {
                case "TRUTH" -> truth.put(parts[1], rest);
                case "L0" -> jompd.put(parts[1], rest);
                case "L1" -> llvm.put(parts[1], rest);
                default -> { }
            }
        }
        return new Run(truth, jompd, llvm, printed);
    }

    /**
     * A debugger that loads libompd.so without HOME or XDG_CACHE_HOME (a service, env -i) on a machine other users
     * share: the engine's log and class archive go to a directory of this user's alone (XDG_RUNTIME_DIR's when it
     * is this user's, else ${TMPDIR:-/tmp}/jompd-UID made 0700), never to a fixed name in /tmp where another user
     * plants a link (the log would be written where it points) or an archive (classes the engine would run).
     */
    @Test
    void withoutAHomeTheEngineKeepsItsLogAndArchiveInADirectoryOfThisUsersAloneNeverInSharedTmp() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root, to plant files as user nobody");
        int nobody = 65534;
        long uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path plantedLog = Path.of("/tmp/jompd-libompd-" + uid + ".log");
        Path plantedArchive = Path.of("/tmp/libompd-engine.jsa");
        assumeTrue(!Files.exists(plantedLog, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.exists(plantedArchive),
                "/tmp already holds " + plantedLog + " or " + plantedArchive);
        Path setup = Files.createDirectories(work.resolve("no-home"));
        Path victim = setup.resolve("written-through-the-link");
        Path theirRuntimeDirectory = Files.createDirectories(setup.resolve("run-user-nobody"));
        Path tmp = Files.createDirectories(setup.resolve("tmp"));
        byte[] notAnArchive = "classes of user nobody's choosing".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try {
            Files.createSymbolicLink(plantedLog, victim);
            Files.write(plantedArchive, notAnArchive);
            Files.setPosixFilePermissions(plantedArchive, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
            for (Path theirs : List.of(plantedArchive, theirRuntimeDirectory)) {
                Files.setAttribute(theirs, "unix:uid", nobody);
            }
            Files.setAttribute(plantedLog, "unix:uid", nobody, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            Commands.Result run = Commands.run(List.of("env", "-u", "HOME", "-u", "XDG_CACHE_HOME",
                    "XDG_RUNTIME_DIR=" + theirRuntimeDirectory, "TMPDIR=" + tmp, "OMP_DEBUG=enabled",
                    "OMPD_DRIVER_API=201811", driver().toString(), JOMPD_LIBRARY.toString()), Map.of(), work,
                    Duration.ofMinutes(2));
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.output()).contains("DONE").doesNotContain("did not start");
            assertThat(victim).as("the log, through the planted link").doesNotExist();
            assertThat(Files.readAllBytes(plantedArchive)).as("the planted archive").isEqualTo(notAnArchive);
            assertThat(Files.getAttribute(plantedArchive, "unix:uid")).isEqualTo(nobody);
            try (var listing = Files.list(theirRuntimeDirectory)) {
                assertThat(listing.toList()).as("nobody's runtime directory").isEmpty();
            }
            Path mine = tmp.resolve("jompd-" + uid);
            assertThat(Files.readAttributes(mine, "unix:uid,mode", java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .isEqualTo(Map.of("uid", (int) uid, "mode", 040700));
            try (var listing = Files.list(mine)) {
                assertThat(listing.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".log")).toList())
                        .isEqualTo(List.of("libompd-engine.log"));
            }
        } finally {
            Files.deleteIfExists(plantedLog);
            Files.deleteIfExists(plantedArchive);
        }
    }

    @Test
    void anEngineTooSlowToAnswerCostsTheCallAnErrorAndAMessageNeverAHang() throws IOException {
        // 1 ms is less than any JVM needs to say hello: every call that needs the engine times out
        Run run = run("201811", Map.of("JOMPD_LIBOMPD_TIMEOUT_MS", "1"), JOMPD_LIBRARY);
        assertThat(run.jompd().get("api_version_null")).isEqualTo("3 -");
        assertThat(run.jompd().get("initialize")).isEqualTo("0 -");
        assertThat(run.jompd().get("process_initialize")).isEqualTo("4 -");
        assertThat(run.printed()).anyMatch(line -> line.startsWith("jompd libompd: the engine (")
                && line.contains("did not start: it timed out"));
    }

    @Test
    void failingOrGarbageAnsweringCallbacksCostAStandardRcNeverAWrongValueAndTheLibraryRecovers() throws IOException {
        Run run = run("201811", Map.of("OMPD_DRIVER_FAULTS", "1"), JOMPD_LIBRARY);
        Map<String, String> truth = run.truth();
        Map<String, String> jompd = run.jompd();
        String ompVersion = jompd.get("omp_version").substring(2);
        // what each routine of the fault script answers when right: the program's own omp_* answers (the
        // runtime's version: the unfaulted call, which the other test checks against LLVM's library)
        Map<String, String> right = Map.ofEntries(Map.entry("omp_version", ompVersion),
                Map.entry("thread_handle_is_self", "0"), Map.entry("curr_parallel_is_inner", "0"),
                Map.entry("team_size", truth.get("team_size")), Map.entry("levels", truth.get("levels")),
                Map.entry("thread_num", truth.get("thread_num")), Map.entry("state_known", "1"),
                Map.entry("thread_in_parallel_1_is_its_pthread", "1"),
                Map.entry("new_address_space_omp_version", ompVersion),
                Map.entry("fresh_space_nteams", truth.get("nteams")),
                Map.entry("fresh_space_teams_thread_limit", truth.get("teams_thread_limit")));
        List<String> modes = List.of("read_fails", "symbol_fails", "symbol_garbage", "thread_context_fails",
                "garbage_field", "symbol_then_read_fails");
        for (String mode : modes) {
            assertThat(jompd.get("fresh_address_space." + mode)).isEqualTo("0 -");
            for (var routine : right.entrySet()) {
                String faulted = jompd.get("fault." + mode + "." + routine.getKey());
                String recovered = jompd.get("recovered." + mode + "." + routine.getKey());
                assertThat(faulted).as(mode + " " + routine.getKey()).isNotNull();
                int rc = Integer.parseInt(faulted.split(" ")[0]);
                // a standard rc other than ok, or ok with the right value: never ok with a wrong one
                if (rc == 0) {
                    assertThat(faulted).as(mode + " " + routine.getKey()).isEqualTo("0 " + routine.getValue());
                } else {
                    assertThat(rc).as(mode + " " + routine.getKey()).isBetween(1, 12);
                }
                // the callbacks behave again: every answer is whole and right
                assertThat(recovered).as("after " + mode + ": " + routine.getKey())
                        .isEqualTo("0 " + routine.getValue());
            }
        }
        // the faults reach the routines that depend on them
        right.keySet().forEach(routine -> assertThat(jompd.get("fault.read_fails." + routine)).as(routine)
                .startsWith("8 "));
        assertThat(jompd.get("fault.thread_context_fails.thread_handle_is_self")).isEqualTo("4 99"); // its own rc
        for (String mode : List.of("symbol_fails", "symbol_garbage")) {
            for (String routine : List.of("thread_handle_is_self", "new_address_space_omp_version",
                    "fresh_space_nteams", "fresh_space_teams_thread_limit")) {
                assertThat(jompd.get("fault." + mode + "." + routine)).as(mode + " " + routine).doesNotStartWith("0 ");
            }
        }
        for (String routine : List.of("thread_handle_is_self", "curr_parallel_is_inner", "thread_num")) {
            assertThat(jompd.get("fault.garbage_field." + routine)).as(routine).doesNotStartWith("0 ");
        }
    }

    @Test
    void anOpenMp60DebuggerIsEnumeratedThe60NamesAndAnsweredIncompatibleHandle() throws IOException {
        Run run = run("202411", JOMPD_LIBRARY);
        Map<String, String> jompd = run.jompd();
        List<String> names = new ArrayList<>();
        for (var entry : jompd.entrySet()) {
            if (entry.getKey().matches("icv\\.\\d+\\.name")) {
                names.add(entry.getValue().split(" ")[1]);
            }
        }
        // 6.0 removed the ompd- aliases and implicit-task-var, and added explicit-task-var
        assertThat(names).noneMatch(name -> name.startsWith("ompd-")).doesNotContain("implicit-task-var")
                .contains("num-procs-var", "thread-num-var", "final-task-var", "team-size-var", "nteams-var");
        assertThat(jompd.get("icv.38.name")).isEqualTo("0 explicit-task-var scope 6");
        // the driver calls from the implicit task of the inner region (the body of a parallel construct)
        assertThat(jompd.get("icv.38.value")).isEqualTo("0 0");
        assertThat(jompd.get("icv.38.string")).isEqualTo("0 false");
        assertThat(jompd.get("icv.21.value")).isEqualTo("0 " + run.truth().get("thread_num"));
        // 6.0's teams scope: enumerated with scope 7; the driver (no teams construct) has no handle for it
        assertThat(jompd.get("icv.39.name")).isEqualTo("0 team-num-var scope 7");
        assertThat(jompd.get("icv.40.name")).isEqualTo("0 league-size-var scope 7");
        assertThat(jompd.get("icv.41.name")).isEqualTo("0 team-generator-var scope 7");
        assertThat(jompd.get("icv.39.value")).startsWith("13 ");
        // a live handle of the wrong kind: OpenMP 6.0's incompatible_handle
        assertThat(jompd.get("wrong_kind_handle")).isEqualTo("13 -");
        assertThat(jompd.get("wrong_kind_icv_handle")).isEqualTo("13 -");
        assertThat(jompd.get("wrong_kind_tool_data")).isEqualTo("13 -");
        // what was right stays so: an ICV of another scope than asked is bad input, garbage handles are stale
        assertThat(jompd.get("icv.29.wrong_scope")).isEqualTo("3 -");
        assertThat(jompd.get("garbage_thread_handle")).isEqualTo("2 -");
    }

    @Test
    void anOpenMp51DebuggerIsEnumeratedEveryIcvWithValuesAsTheProgramSays() throws IOException {
        Run run = run("202011", JOMPD_LIBRARY);
        Map<String, String> jompd = run.jompd();
        assertThat(jompd.get("initialize")).isEqualTo("0 -");
        assertThat(jompd.get("icv.37.name")).isEqualTo("0 teams-thread-limit-var scope 2");
        assertThat(jompd.get("icv.36.name")).isEqualTo("0 nteams-var scope 2");
        assertThat(jompd.get("icv.36.value")).isEqualTo("0 " + run.truth().get("nteams"));
        assertThat(jompd.get("icv.37.value")).isEqualTo("0 " + run.truth().get("teams_thread_limit"));
        assertThat(jompd.get("icv.10.value")).isEqualTo("0 " + run.truth().get("default_device"));
        // place-partition-var, read where libomp keeps it (libomp-places.layout): a string ICV (no integer form), the
        // partition the thread itself got from omp_get_partition_place_nums and omp_get_place_proc_ids
        assertThat(jompd.get("icv.33.name")).isEqualTo("0 place-partition-var scope 3");
        assertThat(jompd.get("icv.33.value")).isEqualTo("7 -12345");
        String places = run.truth().get("partition_places");
        assertThat(jompd.get("icv.33.string")).isEqualTo("0 " + run.truth().get("partition_procs") + " (place"
                + (places.contains(",") ? "s " : " ") + places + " of " + run.truth().get("num_places") + ")");
        for (int id = 31; id <= 37; id++) {
            assertThat(jompd.get("icv." + id + ".string")).as("ICV " + id).startsWith("0 ");
        }
        assertThat(jompd).doesNotContainKey("icv.38.name").doesNotContainKey("icv.39.name");
    }

    @Test
    void everyRoutineAnswersAsLlvmsLibraryWhereThatIsRightAndAsTheProgramSays() throws IOException {
        Run run = run("201811", JOMPD_LIBRARY, runtime.resolve("lib/libompd.so"));
        Map<String, String> truth = run.truth();
        Map<String, String> jompd = run.jompd();
        Map<String, String> llvm = run.llvm();
        // which library answered: their own version strings
        assertThat(jompd.get("library")).startsWith("jompd libompd");
        assertThat(llvm.get("library")).startsWith("LLVM OpenMP");

        List<String> differences = new ArrayList<>();
        for (var entry : llvm.entrySet()) {
            String key = entry.getKey();
            String theirs = entry.getValue();
            String ours = jompd.get(key);
            if (key.equals("library") || theirs.equals(ours)) {
                continue;
            }
            if (key.startsWith("state.")) {
                continue; // below: LLVM's list is ours without two OpenMP 5.1 states
            }
            if (key.equals("watch.reads_most")) {
                continue; // LLVM's looks its breadcrumbs up in its first ompd_get_state: the watch's test
            }
            if (key.equals("task_frame")) {
                // LLVM's library never reads the frame flags (always 0); the addresses agree, ours has a flag
                assertThat(ours.replaceAll("/\\d+", "")).isEqualTo(theirs.replaceAll("/\\d+", ""));
                assertThat(ours).containsPattern("exit 0x[0-9a-f]+/[1-9]");
            } else if (key.matches("icv\\.\\d+\\.string") && theirs.equals("5 -")) {
                // LLVM's has no string form for most ICVs: ours is the integer form, in words for booleans
                OmpdDriverIT.assertStringFormIsTheValue(key, ours, jompd.get(key.replace(".string", ".value")));
            } else if (key.equals("icv.18.string")) {
                // bind-var: LLVM's gives the number of the policy, ours its name (proc_bind_false is 0)
                assertThat(theirs).isEqualTo("0 0");
                assertThat(ours).isEqualTo("0 false");
            } else if (key.equals("icv.7.value")) {
                // nthreads-var: LLVM's answers incomplete (an unsigned underflow when no list is set), same value
                assertThat(theirs).startsWith("11 ");
                assertThat(ours).isEqualTo("0 " + theirs.substring(3));
            } else {
                differences.add(key + ": jompd " + ours + ", LLVM " + theirs);
            }
        }
        assertThat(differences).isEmpty();
        List<String> ourStates = states(jompd);
        List<String> theirStates = states(llvm);
        assertThat(theirStates).isNotEmpty();
        assertThat(ourStates.stream().filter(s -> !STATES_ONLY_JOMPD.contains(s)).toList()).isEqualTo(theirStates);

        // the program's own answers
        assertThat(jompd.get("parallel0.levels")).isEqualTo("0 " + truth.get("levels"));
        assertThat(jompd.get("parallel0.team_size")).isEqualTo("0 " + truth.get("team_size"));
        assertThat(jompd.get("parallel1.team_size")).isEqualTo("0 " + truth.get("outer_team_size"));
        assertThat(jompd.get("thread_id_is_self")).isEqualTo("0 1");
        for (int n = 0; n < Integer.parseInt(truth.get("team_size")); n++) {
            assertThat(jompd.get("thread_in_parallel." + n)).startsWith("0 pthread_matches 1 compare_with_self "
                    + (n == 0 ? "0" : "1"));
        }
        // bad input as the standard and LLVM's self-tests pin it
        assertThat(jompd.get("thread_in_parallel.199")).isEqualTo("3 -");
        assertThat(jompd.get("thread_in_parallel.-5")).startsWith("3 ");
        assertThat(jompd.get("thread_handle_null_out")).isEqualTo("3 -");
        assertThat(jompd.get("thread_id_lwp_kind")).isEqualTo("5 -");
        assertThat(jompd.get("icv.unknown_id")).isEqualTo("3 -");
        // what only jompd's survives: garbage handles, a release, calls after ompd_finalize
        for (String key : Set.of("garbage_thread_handle", "garbage_icv_handle", "garbage_address_space")) {
            assertThat(jompd.get(key)).as(key).isEqualTo("2 -");
        }
        assertThat(jompd.get("release")).isEqualTo("0 -");
        // a live handle of the wrong kind, to a 5.0 debugger: the rcs it knows (6.0's incompatible_handle is not)
        assertThat(jompd.get("wrong_kind_handle")).isEqualTo("2 -");
        assertThat(jompd.get("wrong_kind_icv_handle")).isEqualTo("3 -");
        assertThat(jompd.get("wrong_kind_tool_data")).isEqualTo("3 -");
        assertThat(jompd.get("finalize")).isEqualTo("0 -");
        assertThat(jompd.get("after_finalize.omp_version")).isEqualTo("4 -");
        assertThat(jompd.get("after_finalize.omp_version_again")).isEqualTo(jompd.get("omp_version"));
    }

    @Test
    void getStateFollowsThreadsThatChangeStateUnderTheSameHandlesWithNoMoreReadsThanLlvms() throws IOException {
        Run run = run("201811", JOMPD_LIBRARY, runtime.resolve("lib/libompd.so"));
        for (Map<String, String> library : List.of(run.jompd(), run.llvm())) {
            // the two team mates, under handles made once: spinning in user code, waiting for the lock the
            // driver holds (both for the same lock: one wait id), in an explicit barrier, spinning again
            assertThat(library.get("watch.spinning")).startsWith("0 reached 1 ");
            assertThat(library.get("watch.waiting_for_lock")).isEqualTo("0 reached 1 same_wait_id 1 wait_id_nonzero 1");
            assertThat(library.get("watch.in_barrier")).startsWith("0 reached 1 ");
            assertThat(library.get("watch.spinning_again")).startsWith("0 reached 1 ");
        }
        // LLVM's library reads the state and the wait id: two reads a call once its breadcrumbs are known
        assertThat(run.llvm().get("watch.reads_last")).isEqualTo("0 2");
        // jompd's the same two, in every call (the layout came with the address space: no engine round trip)
        assertThat(run.jompd().get("watch.reads_last")).isEqualTo("0 2");
        assertThat(run.jompd().get("watch.reads_most")).isEqualTo("0 2");
    }

    private static List<String> states(Map<String, String> answers) {
        List<String> names = new ArrayList<>();
        for (int i = 0; answers.containsKey("state." + i); i++) {
            names.add(answers.get("state." + i).split(" ")[2]);
        }
        return names;
    }

    /**
     * An ICV whose string form LLVM's library does not give: jompd's string form (rc 0) is the integer form
     * {@code value} (rc 0) answered, in words for booleans.
     */
    static void assertStringFormIsTheValue(String key, String ours, String value) {
        assertThat(value).as(key).startsWith("0 ");
        String number = value.substring(2);
        String text = ours.substring(2);
        assertThat(ours).as(key).startsWith("0 ");
        assertThat(text.equals(number) || (number.equals("0") && text.equals("false"))
                || (number.equals("1") && text.equals("true"))).as(key + ": " + text + " for " + number).isTrue();
    }
}
