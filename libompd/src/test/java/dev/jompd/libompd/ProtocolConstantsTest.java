package dev.jompd.libompd;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Protocol jompd-libompd/2 is written down twice, in the shim (src/main/c/libompd.c: the comment at its top and its
 * enums) and in the engine ({@link Wire}, {@link Engine}): the numbers of both ends, read from the C source, are
 * the same, name for name, and the comment's routine table numbers the routines as the enum does.
 */
class ProtocolConstantsTest {
    private static final Path SHIM = Path.of("src/main/c/libompd.c");

    /** The C file's anonymous enums and #defines with integer values: name -> value. */
    private static Map<String, Long> cConstants(String source) {
        Map<String, Long> constants = new LinkedHashMap<>();
        Matcher enumBlock = Pattern.compile("(?s)\\benum\\s*\\{([^}]*)}\\s*;").matcher(source);
        while (enumBlock.find()) {
            long next = 0;
            for (String member : enumBlock.group(1).split(",")) {
                String[] parts = member.strip().split("\\s*=\\s*");
                if (parts[0].isEmpty()) {
                    continue;
                }
                long value = parts.length > 1 ? Long.decode(parts[1]) : next;
                constants.put(parts[0], value);
                next = value + 1;
            }
        }
        Matcher define = Pattern.compile("(?m)^#define (\\w+) \\(?(\\d+)u?(?: << (\\d+))?\\)?(?:\\s|$)").matcher(source);
        while (define.find()) {
            long value = Long.parseLong(define.group(2));
            constants.put(define.group(1), define.group(3) == null ? value : value << Integer.parseInt(define.group(3)));
        }
        return constants;
    }

    /** The class's static final int fields: name -> value. */
    private static Map<String, Long> javaConstants(Class<?> type) throws IllegalAccessException {
        Map<String, Long> constants = new TreeMap<>();
        for (Field field : type.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (field.getType() == int.class && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)
                    && !Modifier.isPrivate(modifiers)) {
                field.setAccessible(true);
                constants.put(field.getName(), (long) field.getInt(null));
            }
        }
        return constants;
    }

    /** The C constants whose names start with `prefix`, without it. */
    private static Map<String, Long> withPrefix(Map<String, Long> constants, String prefix) {
        Map<String, Long> chosen = new TreeMap<>();
        constants.forEach((name, value) -> {
            if (name.startsWith(prefix)) {
                chosen.put(name.substring(prefix.length()), value);
            }
        });
        return chosen;
    }

    @Test
    void bothEndsNumberFramesQuestionsAndRoutinesAlike() throws IOException, IllegalAccessException {
        Map<String, Long> c = cConstants(Files.readString(SHIM));
        Map<String, Long> wire = javaConstants(Wire.class);

        Map<String, Long> frames = new TreeMap<>();
        for (String frame : new String[] {"HELLO", "CALL", "QUESTION", "ANSWER", "RESULT"}) {
            frames.put(frame, wire.get(frame));
        }
        assertThat(withPrefix(c, "F_")).isEqualTo(frames);

        Map<String, Long> questions = withPrefix(wire, "Q_");
        assertThat(withPrefix(c, "Q_")).isEqualTo(questions).hasSize(5);

        assertThat(withPrefix(c, "R_")).isEqualTo(javaConstants(Engine.class)).hasSize(23);

        assertThat(c.get("PROTOCOL_VERSION")).isEqualTo(wire.get("PROTOCOL_VERSION"));
        assertThat(c.get("MAX_FRAME")).isEqualTo(wire.get("MAX_FRAME"));
        // nothing else in Wire goes unchecked
        assertThat(wire.keySet()).containsExactlyInAnyOrder("PROTOCOL_VERSION", "MAX_FRAME", "HELLO", "CALL",
                "QUESTION", "ANSWER", "RESULT", "Q_READ", "Q_READ_STRING", "Q_SYMBOL", "Q_THREAD_CONTEXT", "Q_SIZEOF");
    }

    @Test
    void theShimsProtocolCommentNumbersTheRoutinesAndFramesAsItsEnumsDo() throws IOException {
        String source = Files.readString(SHIM);
        Map<String, Long> c = cConstants(source);
        String comment = source.substring(source.indexOf(" * PROTOCOL"), source.indexOf("*/"));

        // "   4 get_thread_in_parallel   ...": the enum's R_ name of that number
        Map<Long, String> tableRoutines = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^ \\*\\s+(\\d+) ([a-z_]+)\\s").matcher(
                comment.substring(comment.indexOf("Routines"), comment.indexOf("Questions")));
        while (row.find()) {
            tableRoutines.put(Long.parseLong(row.group(1)), row.group(2));
        }
        Map<Long, String> enumRoutines = new TreeMap<>();
        withPrefix(c, "R_").forEach((name, value) -> enumRoutines.put(value, name));
        assertThat(tableRoutines.keySet()).isEqualTo(enumRoutines.keySet());
        tableRoutines.forEach((number, routine) -> {
            // the enum's name is the routine's, perhaps shortened by its "_handle" ending
            assertThat(routine.toUpperCase()).as("routine %d", number).startsWith(enumRoutines.get(number));
        });

        Map<String, Long> commentFrames = new TreeMap<>();
        Matcher frame = Pattern.compile("(?m)^ \\*\\s+([A-Z]+)\\s+\\((?:engine|shim) -> (?:engine|shim), type (\\d+)\\)")
                .matcher(comment);
        while (frame.find()) {
            commentFrames.put(frame.group(1), Long.parseLong(frame.group(2)));
        }
        assertThat(commentFrames).isEqualTo(withPrefix(c, "F_"));
        Matcher version = Pattern.compile("HELLO .*word protocol version \\((\\d+)\\)").matcher(comment);
        assertThat(version.find()).isTrue();
        assertThat(Long.parseLong(version.group(1))).isEqualTo(c.get("PROTOCOL_VERSION"));
    }
}
