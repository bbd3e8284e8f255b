package dev.jompd.core.target.core;

import dev.jompd.testkit.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a file is an ELF file and whether a core is cut short, on a real ELF file cut at two places; the program
 * headers' truth is binutils' ({@code readelf -lW}), not jompd's parser.
 */
class CoreFileChecksTest {
    private static final Pattern HEADERS = Pattern.compile("There are (\\d+) program headers, starting at offset (\\d+)");
    private static final Pattern SEGMENT = Pattern.compile("^\\s+[A-Z_]+\\s+0x([0-9a-f]+)\\s+0x[0-9a-f]+\\s+0x[0-9a-f]+\\s+0x([0-9a-f]+)\\s",
            Pattern.MULTILINE);

    @Test
    void aCutShortElfFileSaysWhereAndByHowMuch(@TempDir Path directory) throws Exception {
        Path whole = Path.of("/bin/true").toRealPath();
        Commands.Result readelf = Commands.run(List.of("readelf", "-lW", whole.toString()), Map.of(), directory,
                Duration.ofSeconds(30));
        Matcher headers = HEADERS.matcher(readelf.output());
        assertThat(headers.find()).as(readelf.output()).isTrue();
        long needed = 0;
        for (Matcher segment = SEGMENT.matcher(readelf.output()); segment.find(); ) {
            needed = Math.max(needed, Long.parseLong(segment.group(1), 16) + Long.parseLong(segment.group(2), 16));
        }
        assertThat(CoreFileChecks.truncation(whole)).isEmpty();
        assertThat(CoreFileChecks.isElf(whole)).isTrue();

        byte[] bytes = Files.readAllBytes(whole);
        Path half = Files.write(directory.resolve("core.half"), Arrays.copyOf(bytes, bytes.length / 2));
        assertThat(CoreFileChecks.truncation(half)).hasValue("core " + half + " is cut short: " + bytes.length / 2
                + " of the " + needed + " bytes its segments need (a dump that stopped early: disk full, ulimit -c, a "
                + "killed gcore)");

        Path headersCut = Files.write(directory.resolve("core.headers"), Arrays.copyOf(bytes, 100));
        assertThat(CoreFileChecks.truncation(headersCut)).hasValue("core " + headersCut + " is cut short: its program "
                + "headers (at " + headers.group(2) + ", " + headers.group(1) + " of them) are not within its 100 bytes");
        assertThat(CoreFileChecks.isElf(headersCut)).as("still starts with the magic").isTrue();
    }

    @Test
    void aFileThatIsNoElfFileIsSaidToBeNone(@TempDir Path directory) throws Exception {
        Path text = Files.writeString(directory.resolve("notes.txt"),
                "not a core at all, but long enough to have a header of sixty-four bytes or more...");
        assertThat(CoreFileChecks.truncation(text)).hasValue("core " + text + " is not an ELF file (" + Files.size(text)
                + " bytes)");
        assertThat(CoreFileChecks.isElf(text)).isFalse();
        assertThat(CoreFileChecks.isElf(directory.resolve("missing"))).isFalse();
    }
}
