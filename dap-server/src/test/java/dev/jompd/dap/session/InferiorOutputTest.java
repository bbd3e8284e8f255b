package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A real program's output through the real named pipes: everything it wrote is forwarded before drain returns. */
class InferiorOutputTest {
    @Test
    void drainReturnsOnceEverythingTheProgramWroteWasForwardedZeroBytesIncluded() throws Exception {
        Map<String, StringBuilder> received = new ConcurrentHashMap<>();
        try (InferiorOutput output = InferiorOutput.open((category, text) ->
                received.computeIfAbsent(category, c -> new StringBuilder()).append(text))) {
            Matcher redirections = Pattern.compile(">'?([^' ]+)'? 2>'?([^' ]+)'?").matcher(output.redirections());
            assertThat(redirections.find()).as(output.redirections()).isTrue();
            // 100 000 lines on stdout (more than a pipe holds), zero bytes among them, one line on stderr
            Process program = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 100000 ]; do echo \"line $i\"; i=$((i+1)); done"
                    + " > " + redirections.group(1) + "; printf 'a\\000b\\n' >> " + redirections.group(1)
                    + "; echo last words > " + redirections.group(2)).start();
            assertThat(program.waitFor()).isZero();
            long start = System.nanoTime();
            output.drain(Duration.ofSeconds(30));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("drained by its mark, not the time-out")
                    .isLessThan(Duration.ofSeconds(30));
            String out = received.get("stdout").toString();
            assertThat(out).startsWith("line 0\n").contains("line 99999\n").endsWith("a\0b\n");
            assertThat(out.lines().filter(line -> line.startsWith("line "))).hasSize(100_000);
            assertThat(received.get("stderr").toString()).isEqualTo("last words\n");
        }
    }
}
