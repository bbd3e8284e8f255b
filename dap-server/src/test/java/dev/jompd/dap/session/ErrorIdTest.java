package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The error ids are a published table: numbers never change, and only start failures interrupt the user. */
class ErrorIdTest {
    /** The table as published in the README: id and showUser of every name. Changing a number breaks clients. */
    private static final Map<String, String> PUBLISHED = new LinkedHashMap<>();

    static {
        PUBLISHED.put("MALFORMED_MESSAGE", "1001 false");
        PUBLISHED.put("UNKNOWN_COMMAND", "1002 false");
        PUBLISHED.put("INVALID_ARGUMENTS", "1003 false");
        PUBLISHED.put("OUT_OF_ORDER", "1004 false");
        PUBLISHED.put("NOT_STOPPED", "1101 false");
        PUBLISHED.put("PROGRAM_EXITED", "1102 false");
        PUBLISHED.put("NO_RUN_CONTROL", "1103 false");
        PUBLISHED.put("STALE_HANDLE", "1104 false");
        PUBLISHED.put("EVALUATION_FAILED", "1201 false");
        PUBLISHED.put("OPENMP_UNAVAILABLE", "1202 false");
        PUBLISHED.put("GDB_COMMAND_FAILED", "1203 false");
        PUBLISHED.put("GDB_NOT_RESPONDING", "1204 false");
        PUBLISHED.put("GDB_EXITED", "1205 false");
        PUBLISHED.put("SOURCE_UNAVAILABLE", "1206 false");
        PUBLISHED.put("LAUNCH_FAILED", "1301 true");
        PUBLISHED.put("GDB_MISSING", "1302 true");
        PUBLISHED.put("PROGRAM_CANNOT_START", "1303 true");
        PUBLISHED.put("INTERNAL_ERROR", "1901 false");
    }

    @Test
    void idsAndShowUserAreThePublishedOnes() {
        Map<String, String> actual = new LinkedHashMap<>();
        for (ErrorId id : ErrorId.values()) {
            actual.put(id.name(), id.id() + " " + id.showUser());
        }
        assertThat(actual).containsExactlyEntriesOf(PUBLISHED);
    }

    @Test
    void idsAreUniqueAndNeverTheOldCatchAllOne() {
        assertThat(Arrays.stream(ErrorId.values()).map(ErrorId::id)).doesNotHaveDuplicates().doesNotContain(1);
    }

    @Test
    void onlyWhatTheUserMustFixInterruptsTheUser() {
        assertThat(Arrays.stream(ErrorId.values()).filter(ErrorId::showUser))
                .containsExactlyInAnyOrder(ErrorId.LAUNCH_FAILED, ErrorId.GDB_MISSING, ErrorId.PROGRAM_CANNOT_START);
        // what hover, watch and the console answer with must never pop up
        assertThat(ErrorId.EVALUATION_FAILED.showUser()).isFalse();
        assertThat(ErrorId.NOT_STOPPED.showUser()).isFalse();
        assertThat(ErrorId.OPENMP_UNAVAILABLE.showUser()).isFalse();
    }

    @Test
    void theReadmeListsEveryId() throws IOException {
        Path readme = Path.of("..", "docs", "dap.md");
        String text = Files.readString(readme);
        for (ErrorId id : ErrorId.values()) {
            assertThat(text).as("README lists " + id).contains("| " + id.id() + " | `" + id.name() + "` |");
        }
    }

    @Test
    void everyIdSaysWhatItMeans() {
        for (ErrorId id : ErrorId.values()) {
            assertThat(id.meaning()).as(id.name()).isNotBlank();
        }
    }
}
