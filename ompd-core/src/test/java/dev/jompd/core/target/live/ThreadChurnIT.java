package dev.jompd.core.target.live;

import dev.jompd.core.target.TargetThread;
import dev.jompd.testkit.Commands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Attaching to a process that creates and ends threads all the time: every attach must stop every
 * thread that exists at that moment (threads created while attaching included), and detaching must
 * leave the program running exactly as before, signals included.
 */
class ThreadChurnIT {
    /**
     * Creates threads in rounds until a line arrives on stdin: each round ROOTS threads, each of which
     * creates a chain of DEPTH more. Every thread signals itself once (SIGUSR1) and counts the
     * delivery: a signal lost or doubled by a ptrace stop shows up in the totals checked at the end.
     * With LINGER, it goes on for LINGER rounds after the stop line, then exits while creating threads.
     */
    private static final String PROGRAM = """
            #define _GNU_SOURCE
            #include <pthread.h>
            #include <signal.h>
            #include <stdatomic.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>
            #include <errno.h>

            static atomic_long started, finished, delivered;
            static atomic_int stop;

            static void fail(const char *what, int rc) {
              printf("CHURN_RESULT fail %s: %s\\n", what, strerror(rc));
              fflush(stdout);
              _exit(1);
            }

            static void on_usr1(int sig) { (void)sig; atomic_fetch_add(&delivered, 1); }

            static void *worker(void *arg) {
              long depth = (long)arg;
              atomic_fetch_add(&started, 1);
              pthread_t child;
              if (depth > 0) {
                int rc = pthread_create(&child, NULL, worker, (void *)(depth - 1));
                if (rc) fail("pthread_create", rc);
              }
              int rc = pthread_kill(pthread_self(), SIGUSR1);
              if (rc) fail("pthread_kill", rc);
              volatile unsigned long sink = 0;
              for (unsigned long i = 0; i < 20000; i++) sink += i;
              if (depth > 0 && (rc = pthread_join(child, NULL))) fail("pthread_join", rc);
              atomic_fetch_add(&finished, 1);
              return NULL;
            }

            static void *stopper(void *unused) {
              (void)unused;
              char c;
              for (;;) {
                ssize_t n = read(0, &c, 1);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0 || c == '\\n') break;
              }
              atomic_store(&stop, 1);
              return NULL;
            }

            int main(int argc, char **argv) {
              int roots = argc > 1 ? atoi(argv[1]) : 8;
              int depth = argc > 2 ? atoi(argv[2]) : 3;
              long linger = argc > 3 ? atol(argv[3]) : -1; /* rounds to go on after the stop line, then exit mid-round */
              struct sigaction action;
              memset(&action, 0, sizeof action);
              action.sa_handler = on_usr1;
              action.sa_flags = SA_RESTART;
              sigaction(SIGUSR1, &action, NULL);
              pthread_t stopper_thread;
              int rc = pthread_create(&stopper_thread, NULL, stopper, NULL);
              if (rc) fail("pthread_create", rc);
              printf("CHURN_READY %d\\n", getpid());
              fflush(stdout);
              pthread_t *threads = calloc(roots, sizeof *threads);
              long rounds = 0;
              long after_stop = 0;
              while (!atomic_load(&stop) || after_stop++ < linger) {
                for (int i = 0; i < roots; i++)
                  if ((rc = pthread_create(&threads[i], NULL, worker, (void *)(long)depth))) fail("pthread_create", rc);
                for (int i = 0; i < roots; i++)
                  if ((rc = pthread_join(threads[i], NULL))) fail("pthread_join", rc);
                rounds++;
              }
              pthread_join(stopper_thread, NULL);
              long expect = rounds * roots * (depth + 1);
              if (atomic_load(&started) != expect || atomic_load(&finished) != expect || atomic_load(&delivered) != expect) {
                printf("CHURN_RESULT fail expected %ld threads, started %ld finished %ld signals %ld\\n", expect,
                       atomic_load(&started), atomic_load(&finished), atomic_load(&delivered));
                return 1;
              }
              printf("CHURN_RESULT ok rounds=%ld threads=%ld\\n", rounds, expect);
              fflush(stdout);
              if (linger >= 0) {
                /* exit_group while a last round of threads is being created: threads vanish mid-attach */
                for (int i = 0; i < roots; i++)
                  if ((rc = pthread_create(&threads[i], NULL, worker, (void *)(long)depth))) fail("pthread_create", rc);
                exit(0);
              }
              return 0;
            }
            """;
    private static final int ATTACHES = 40;

    @TempDir
    static Path directory;
    static Path program;

    @BeforeAll
    static void build() throws IOException {
        PtraceSupport.assumePermitted(directory);
        boolean gcc = Commands.available("gcc");
        if (!gcc) {
            System.out.println("[jompd] ThreadChurnIT skipped: gcc is not installed");
        }
        assumeThat(gcc).as("gcc is installed").isTrue();
        Path source = directory.resolve("churn.c");
        Files.writeString(source, PROGRAM);
        program = directory.resolve("churn");
        Commands.Result result = Commands.run(List.of("gcc", "-O1", "-g", "-pthread", "-o", program.toString(), source.toString()),
                Map.of(), directory, Duration.ofMinutes(2));
        assertThat(result.exitCode()).as("gcc:%n%s", result.output()).isZero();
    }

    @Test
    void everyAttachCatchesEveryThreadAndTheProgramFinishesUndisturbed() {
        try (DetachedProcess churn = DetachedProcess.start(List.of(program.toString(), "8", "3"), Map.of(), directory,
                directory.resolve("churn-stderr.txt"))) {
            churn.awaitLine("CHURN_READY", Duration.ofSeconds(30));
            int pid = (int) churn.pid();
            Set<Long> seen = new HashSet<>();
            List<Double> millis = new ArrayList<>();
            int maxThreads = 0;
            for (int attach = 0; attach < ATTACHES; attach++) {
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(pid)) {
                    millis.add(space.stopDuration().toNanos() / 1e6);
                    // Everything is stopped, so /proc/PID/task cannot change now: it must be exactly our list.
                    List<Long> tasks = ProcFs.threadIds(pid).stream().map(Long::valueOf).toList();
                    assertThat(space.threads()).extracting(TargetThread::lwp).containsExactlyInAnyOrderElementsOf(tasks);
                    for (long tid : tasks) {
                        assertThat(ProcFs.threadState(pid, (int) tid)).as("thread %d", tid).contains('t');
                    }
                    assertThat(space.threads()).allSatisfy(thread -> assertThat(thread.threadPointer()).isPresent());
                    space.threads().forEach(thread -> seen.add(thread.lwp()));
                    maxThreads = Math.max(maxThreads, space.threads().size());
                }
                for (int tid : ProcFs.threadIds(pid)) {
                    // A thread may end between the listing and the read: only a present tracer is wrong.
                    ProcFs.tracerOf(pid, tid).ifPresent(tracer -> assertThat(tracer).as("tracer of %d after detach", tid).isZero());
                }
            }
            System.out.printf("[jompd] thread churn: %d attaches, up to %d threads each, %d distinct threads seen; "
                            + "stop times: median %.2f ms, max %.2f ms%n",
                    ATTACHES, maxThreads, seen.size(), millis.stream().sorted().toList().get(millis.size() / 2),
                    millis.stream().mapToDouble(Double::doubleValue).max().orElse(0));
            assertThat(seen.size()).as("threads came and went between attaches").isGreaterThan(maxThreads);
            churn.writeLine("");
            int exit = churn.waitFor(Duration.ofMinutes(1));
            assertThat(churn.output()).contains("CHURN_RESULT ok");
            assertThat(exit).isZero();
        }
    }

    @Test
    void attachingWhileTheProgramExitsFailsCleanlyAndNeverHoldsIt() {
        try (DetachedProcess churn = DetachedProcess.start(List.of(program.toString(), "8", "3", "300"), Map.of(), directory,
                directory.resolve("churn-exit-stderr.txt"))) {
            churn.awaitLine("CHURN_READY", Duration.ofSeconds(30));
            int pid = (int) churn.pid();
            churn.writeLine(""); // it finishes its round and exits while we keep attaching
            int attached = 0;
            Map<AttachException.Reason, Integer> refusals = new java.util.EnumMap<>(AttachException.Reason.class);
            while (ProcFs.exists(pid)) {
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(pid)) {
                    attached++;
                    assertThat(space.threads()).isNotEmpty();
                } catch (AttachException e) {
                    assertThat(e.reason()).as(e.getMessage()).isIn(AttachException.Reason.EXITED_DURING_ATTACH,
                            AttachException.Reason.NO_SUCH_PROCESS);
                    refusals.merge(e.reason(), 1, Integer::sum);
                }
            }
            System.out.printf("[jompd] attaching while the program exits: %d attaches, refusals %s%n", attached, refusals);
            int exit = churn.waitFor(Duration.ofMinutes(1));
            assertThat(churn.output()).contains("CHURN_RESULT ok");
            assertThat(exit).isZero();
        }
    }

    @Test
    void aDeletedExecutableStillHasItsSymbols() throws IOException {
        Path copy = directory.resolve("churn-deleted");
        Files.copy(program, copy);
        try (DetachedProcess churn = DetachedProcess.start(List.of(copy.toString(), "2", "1"), Map.of(), directory,
                directory.resolve("churn-deleted-stderr.txt"))) {
            churn.awaitLine("CHURN_READY", Duration.ofSeconds(30));
            Files.delete(copy);
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(churn.pid())) {
                assertThat(space.executable()).hasValueSatisfying(module ->
                        assertThat(module.path().toString()).isEqualTo(copy + " (deleted)"));
                // The path names no file now: the symbols come from the mapped inode (/proc/PID/map_files).
                var worker = space.lookupSymbol("worker").orElseThrow();
                assertThat(worker.module()).isEqualTo("churn-deleted");
                byte[] code = new byte[4];
                space.read(worker.address(), code, 0, code.length); // mapped, readable code
            }
            churn.writeLine("");
            assertThat(churn.waitFor(Duration.ofMinutes(1))).isZero();
            assertThat(churn.output()).contains("CHURN_RESULT ok");
        }
    }
}
