package dev.jompd.gdb;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FileCheck's CHECK / CHECK-NOT / CHECK-DAG semantics as {@link FileChecks} evaluates them, one verdict each. */
class FileChecksTest {
    private static List<Boolean> verdicts(String checks, String output) {
        return FileChecks.evaluate(FileChecks.parse(checks, "t.c"), output).stream().map(FileChecks.Verdict::passed).toList();
    }

    @Test
    void checksMatchInOrderAndAFailedOneDoesNotHideTheNext() {
        String checks = "// CHECK: alpha\n// CHECK: gamma\n// CHECK: beta\n// CHECK: delta\n";
        assertThat(verdicts(checks, "alpha\nbeta\ngamma\ndelta\n")).containsExactly(true, true, false, true);
    }

    @Test
    void aCheckNotHoldsOnlyBetweenTheMatchesAroundIt() {
        String checks = "// CHECK: on\n// CHECK-NOT: {{__kmp.*}}\n// CHECK: off\n// CHECK: {{__kmp.*}}\n";
        assertThat(verdicts(checks, "on\n#0 main\noff\n#3 __kmp_fork_call\n")).containsExactly(true, true, true, true);
        assertThat(verdicts(checks, "on\n#3 __kmp_fork_call\noff\n")).containsExactly(true, false, true, false);
    }

    @Test
    void trailingCheckNotsCoverTheRestAndLeadingOnesTheStart() {
        String checks = "// CHECK-NOT: Skip\n// CHECK: ready\n// CHECK-NOT: Python Exception\n";
        assertThat(verdicts(checks, "ready\nPython Exception <class 'x'>\n")).containsExactly(true, true, false);
        assertThat(verdicts(checks, "Skip\nready\n")).containsExactly(false, true, true);
    }

    @Test
    void blanksAreOneSpaceAndBracesAreRegularExpressions() {
        String checks = "// CHECK: levels-var      parallel   2\n// CHECK: ompd_parallel.c{{[ ]*}}:16\n// CHECK: {{^ }}team 5{{$}}\n";
        assertThat(verdicts(checks, "levels-var \t parallel 2\nompd_parallel.c:16\n  team   5\n"))
                .containsExactly(true, true, true);
        assertThat(verdicts("// CHECK: {{^ }}team 5{{$}}\n", "  team 50\n")).containsExactly(false);
    }

    @Test
    void dagChecksMatchInAnyOrderAfterThePreviousMatch() {
        String checks = "// CHECK: stop\n// CHECK-DAG: b\n// CHECK-DAG: a\n// CHECK: end\n";
        assertThat(verdicts(checks, "a\nstop\na\nb\nend\n")).containsExactly(true, true, true, true);
        assertThat(verdicts(checks, "a\nstop\nb\nend\n")).containsExactly(true, true, false, true);
    }

    @Test
    void otherDirectivesAreRefusedNotIgnored() {
        assertThatThrownBy(() -> FileChecks.parse("// CHECK-NEXT: x\n", "t.c")).hasMessageContaining("t.c:1");
    }
}
