package dev.jompd.core.unwind;

import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixtures;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stack through a signal handler: the handler's frames, glibc's {@code __restore_rt} trampoline
 * (its {@code S}-augmented call frame information), and the interrupted frames below it, whose pc is
 * exact rather than a return address. Checked against gdb on a core taken inside the handler.
 */
class SignalFrameIT {
    private static final String PROGRAM = """
            #include <signal.h>
            volatile int hits;
            __attribute__((noinline)) void in_handler(void) { hits++; }
            static void handler(int sig) { (void) sig; in_handler(); }
            __attribute__((noinline)) void interrupted(void) { raise(SIGUSR1); }
            int main(void) { signal(SIGUSR1, handler); interrupted(); return hits == 1 ? 0 : 1; }
            """;

    @Test
    void stackThroughASignalHandlerMatchesGdb() throws IOException {
        Path directory = Fixtures.workDirectory("signal-frame");
        Path source = Files.writeString(directory.resolve("signal.c"), PROGRAM);
        Path executable = directory.resolve("signal");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-g", "-O0", "-o", executable.toString(),
                source.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        Path core = directory.resolve("core");
        Files.deleteIfExists(core);
        Commands.Result run = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "handle SIGUSR1 nostop noprint pass", "-ex", "break in_handler", "-ex", "run",
                "-ex", "gcore " + core, "-ex", "kill", executable.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(core).as(run.output()).isRegularFile();

        Map<Long, List<GdbBacktrace.Frame>> truth = GdbBacktrace.ofCore(executable, core);
        NativeStack stack;
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withExecutable(executable).open();
             DebugInfoCache cache = new DebugInfoCache(); Unwinder unwinder = new Unwinder(space, cache)) {
            stack = unwinder.unwind(space.threads().getFirst());
        }
        List<GdbBacktrace.Frame> gdbFrames = truth.get(stack.lwp());
        assertThat(gdbFrames).extracting(GdbBacktrace.Frame::kind).contains("sigtramp");
        int trampoline = gdbFrames.stream().map(GdbBacktrace.Frame::kind).toList().indexOf("sigtramp");
        // gdb names the trampoline "<signal handler called>": jompd's frame is __restore_rt, from a signal context on.
        assertThat(stack.frames().get(trampoline).function()).hasValue("__restore_rt");
        assertThat(stack.frames().get(trampoline + 1).method()).isEqualTo(UnwindMethod.SIGNAL_CONTEXT);
        List<GdbBacktrace.Frame> withoutTrampoline = new java.util.ArrayList<>(gdbFrames);
        withoutTrampoline.remove(trampoline);
        List<NativeFrame> ours = new java.util.ArrayList<>(stack.frames());
        ours.remove(trampoline);
        NativeStack comparable = new NativeStack(stack.lwp(), ours, stack.truncation());
        assertThat(StackComparison.differences(Map.of(stack.lwp(), withoutTrampoline), List.of(comparable))).isEmpty();
    }
}
