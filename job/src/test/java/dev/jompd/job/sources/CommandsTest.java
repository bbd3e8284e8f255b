package dev.jompd.job.sources;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * squeue and scontrol as jompd runs them: a command that never ends is killed at the timeout (reading its
 * output to the end first waited for it forever), and one that says more than a pipe holds is read to its end
 * (waiting for it first would block it for good).
 */
class CommandsTest {
    @Test
    void aCommandThatNeverEndsIsKilledAtTheTimeout() {
        List<String> command = List.of("sh", "-c", "echo partial; exec sleep 60");
        long start = System.nanoTime();
        assertThatThrownBy(() -> Commands.run(command, Duration.ofSeconds(1))).isInstanceOf(IOException.class)
                .hasMessage("sh -c echo partial; exec sleep 60 did not answer in 1.0 s");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void moreOutputThanAPipeHoldsIsReadWholeWithTheExitCode() throws IOException {
        // 200,000 lines of "line N": some 1.3 MB, twenty pipes' worth
        Commands.Result result = Commands.run(List.of("sh", "-c", "seq -f 'line %g' 1 200000; exit 3"), Duration.ofSeconds(30));
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= 200_000; i++) {
            expected.append("line ").append(i).append('\n');
        }
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.output()).isEqualTo(expected.toString());
    }
}
