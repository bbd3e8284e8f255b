package dev.jompd.job.sources;

import dev.jompd.core.target.core.CoreFileChecks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/** Which files are a job's cores, which rank each is, and whether one is cut short (on real ELF files). */
class CoreFilesTest {
    @Test
    void theRankInAFileNameIsTheLastRankNumberItGives() {
        assertThat(CoreFiles.rankFromName(Path.of("/x/core.rank-3"))).hasValue(3);
        assertThat(CoreFiles.rankFromName(Path.of("rank12.core"))).hasValue(12);
        assertThat(CoreFiles.rankFromName(Path.of("core.rank_4.rank.7"))).hasValue(7);
        assertThat(CoreFiles.rankFromName(Path.of("core.12345"))).as("a pid is not a rank").isEmpty();
    }

    @Test
    void theEnvironmentSaysTheRankInTheLaunchersOrder() {
        assertThat(RankEnvironment.rank(Map.of("SLURM_PROCID", "5", "PMIX_RANK", "2", "OMPI_COMM_WORLD_RANK", "1")))
                .hasValueSatisfying(r -> {
                    assertThat(r.rank()).isEqualTo(OptionalInt.of(1));
                    assertThat(r.origin()).isEqualTo("OMPI_COMM_WORLD_RANK");
                });
        assertThat(RankEnvironment.rank(Map.of("SLURM_PROCID", "5", "PMI_RANK", "x")))
                .hasValueSatisfying(r -> assertThat(r.origin()).isEqualTo("SLURM_PROCID"));
        assertThat(RankEnvironment.rank(Map.of("HOME", "/root"))).isEmpty();
    }

    @Test
    void aWholeElfFileIsNotCutShortAndAHalfOneIs(@TempDir Path directory) throws Exception {
        Path whole = Path.of("/bin/true").toRealPath();
        assertThat(CoreFileChecks.truncation(whole)).isEmpty();
        byte[] bytes = Files.readAllBytes(whole);
        Path half = directory.resolve("core.rank-2");
        Files.write(half, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        assertThat(CoreFileChecks.truncation(half)).hasValueSatisfying(why -> assertThat(why).contains("cut short"));
        Path text = directory.resolve("notes.txt");
        Files.writeString(text, "not a core at all, but long enough to have a header of sixty-four bytes or more...");
        assertThat(CoreFileChecks.truncation(text)).hasValueSatisfying(why -> assertThat(why).contains("not an ELF file"));
        assertThat(CoreFiles.find(directory.toString())).as("a directory's ELF files only").containsExactly(half);
        assertThat(CoreFiles.find(directory.resolve("core.*").toString())).containsExactly(half);
    }
}
