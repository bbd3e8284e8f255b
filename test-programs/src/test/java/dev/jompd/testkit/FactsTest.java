package dev.jompd.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FactsTest {
    @Test
    void readsThreadsListsAndHexNumbers(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("facts.properties");
        Files.writeString(file, """
                fixture=nested
                threads=1
                thread.0.lwp=4711
                thread.0.pthread=0xffff800012345678
                thread.0.ancestors=0,3
                thread.0.team_sizes=4,4
                """);
        Facts facts = Facts.read(file);
        assertThat(facts.threadCount()).isEqualTo(1);
        assertThat(facts.thread(0).lwp()).isEqualTo(4711);
        assertThat(facts.thread(0).pthread()).isEqualTo(0xffff800012345678L);
        assertThat(facts.thread(0).ancestors()).containsExactly(0, 3);
        assertThat(facts.threadWithLwp(4711)).isPresent();
        assertThatThrownBy(() -> facts.get("nope")).hasMessageContaining("nope");
    }
}
