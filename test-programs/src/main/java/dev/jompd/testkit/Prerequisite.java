package dev.jompd.testkit;

import org.junit.jupiter.api.Assumptions;

import java.util.function.Supplier;

/**
 * What a test needs from the machine (node 20, Chromium, permission to ptrace, ...): without it the test is
 * skipped with the reason on a developer's machine, but fails on CI (the environment variable {@code CI} set,
 * as CI services and {@code .ci/run}'s caller set it), where scripts/setup-system.sh provides everything and a
 * skip would let the feature go untested under a green build.
 */
public final class Prerequisite {
    private Prerequisite() {}

    /** Whether this is a CI run: {@code CI} is set and not empty. */
    public static boolean onCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isEmpty();
    }

    /** Returns when {@code present}; else skips the test (fails it on CI) with {@code why}. */
    public static void require(boolean present, Supplier<String> why) {
        if (present) {
            return;
        }
        String reason = why.get();
        if (onCi()) {
            throw new AssertionError(reason + " (CI is set: a missing prerequisite fails the test, it is not skipped)");
        }
        Assumptions.abort(reason);
    }

    public static void require(boolean present, String why) {
        require(present, () -> why);
    }
}
