package dev.jompd.core.target.live;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Prerequisite;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Skips live tests, printing why, where this JVM may not ptrace (or gdb is missing); on CI ({@code CI} set) fails
 * them instead, so that a host without ptrace cannot pass the live suite with nothing run.
 */
final class PtraceSupport {
    private static volatile String skipReason;
    private static volatile boolean checked;

    private PtraceSupport() {}

    /** Aborts the calling test (skipped, with the reason printed; failed on CI) unless attaching to a process of ours works. */
    static synchronized void assumePermitted(Path directory) {
        if (!checked) {
            skipReason = probe(directory);
            checked = true;
            if (skipReason != null) {
                System.out.println("[jompd] live-process tests skipped: " + skipReason);
            }
        }
        Prerequisite.require(skipReason == null, () -> skipReason);
    }

    static void assumeGdb() {
        boolean available = Commands.available("gdb");
        if (!available) {
            System.out.println("[jompd] test skipped: gdb is not installed (run scripts/setup-system.sh)");
        }
        Prerequisite.require(available, "gdb is not installed (run scripts/setup-system.sh)");
    }

    private static String probe(Path directory) {
        try (DetachedProcess sleeper = DetachedProcess.start(List.of("/bin/sh", "-c", "echo JOMPD_PROBE_READY; exec sleep 120"),
                Map.of(), directory, directory.resolve("probe-stderr.txt"))) {
            sleeper.awaitLine("JOMPD_PROBE_READY", Duration.ofSeconds(30));
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(sleeper.pid())) {
                return space.threads().isEmpty() ? "attaching found no threads" : null;
            } catch (AttachException e) {
                return e.reason() == AttachException.Reason.PERMISSION_DENIED ? e.getMessage() : null;
            }
        }
    }
}
