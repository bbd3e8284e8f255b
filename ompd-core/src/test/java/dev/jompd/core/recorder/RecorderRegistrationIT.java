package dev.jompd.core.recorder;

import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.Runtimes;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registration results the recorder keeps, compared with what libomp's own source says it
 * implements ({@code ompt-event-specific.h}: {@code ompt_callback_X_implemented}) and with the facts
 * measured here (ompd-facts.md: always, except device_unload and target_map: never), on every tested
 * runtime; and the recorder's callback names and numbers against each runtime's {@code omp-tools.h}.
 */
class RecorderRegistrationIT {
    private static final Pattern IMPLEMENTED = Pattern.compile(
            "#define\\s+ompt_callback_(\\w+)_implemented\\s+(ompt_event_\\w+)");

    private static Path source(int version, String file) {
        Runtimes.prefix(version); // builds (and unpacks the source) when missing
        return Runtimes.cacheDirectory().resolve("src/llvm-" + version + "/src/openmp/runtime/src/" + file);
    }

    /**
     * Every callback of the runtime's {@code ompt_callbacks_t} is one the recorder knows, by the same number and
     * name (LLVM 23's header marks the non-EMI target callbacks deprecated as of OpenMP 6.0 but keeps their
     * names and numbers; masked and its 5.0 alias master share 21).
     */
    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theCallbacksAreTheRuntimeHeadersOwn(int version) throws IOException {
        Path header = source(version, "include/omp-tools.h.var");
        Assumptions.assumeTrue(Files.isRegularFile(header), () -> "libomp's source is not unpacked at " + header);
        Matcher matcher = Pattern.compile("(?m)^\\s*ompt_callback_(\\w+)\\s+(?:DEPRECATED_\\d+\\s+)?=\\s*(\\d+)")
                .matcher(Files.readString(header));
        Map<String, Integer> declared = new HashMap<>();
        while (matcher.find()) {
            declared.put(matcher.group(1), Integer.parseInt(matcher.group(2)));
        }
        assertThat(declared).hasSizeGreaterThan(30);
        declared.forEach((name, id) -> {
            if (!name.equals("master")) { // the 5.0 name of masked
                assertThat(OmptCallback.of(id)).as("ompt_callback_" + name + " = " + id)
                        .hasValueSatisfying(callback -> assertThat(callback.ompName()).isEqualTo("ompt_callback_" + name));
            }
        });
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void registrationCodesAreWhatLibompsSourceDeclares(int version) throws IOException {
        Path header = source(version, "ompt-event-specific.h");
        Assumptions.assumeTrue(Files.isRegularFile(header),
                () -> "libomp's source is not unpacked at " + header + " (scripts/build-runtime.sh does that)");
        // Continuation lines joined, so a definition split with a backslash reads as one.
        String source = Files.readString(header).replaceAll("\\\\\\s*\\n\\s*", " ");
        Map<String, Integer> declared = new HashMap<>();
        Matcher matcher = IMPLEMENTED.matcher(source);
        while (matcher.find()) {
            declared.put(matcher.group(1), switch (matcher.group(2)) {
                case "ompt_event_UNIMPLEMENTED" -> 1;       // ompt_set_never
                case "ompt_event_MAY_CONVENIENT" -> 3;      // ompt_set_sometimes
                case "ompt_event_MAY_ALWAYS" -> 5;          // ompt_set_always
                // ompt_set_always in a build with LIBOMP_OMPT_OPTIONAL (the default and ours)
                case "ompt_event_MAY_ALWAYS_OPTIONAL" -> 5;
                default -> throw new AssertionError("unknown status " + matcher.group(2));
            });
        }
        assertThat(declared).hasSizeGreaterThan(30);

        RecorderSnapshot recorder = RecorderIT.read(Fixtures.core(RecorderLibrary.with(
                FixtureRun.of(Fixture.RECORDER_EVENTS, "2", "1").onRuntime(version))));
        SoftAssertions soft = new SoftAssertions();
        for (OmptCallback callback : OmptCallback.values()) {
            String name = callback.name().toLowerCase(java.util.Locale.ROOT);
            Registration registration = recorder.registration(callback);
            soft.assertThat(declared).as("libomp declares " + name).containsKey(name);
            if (declared.containsKey(name)) {
                soft.assertThat(registration.code()).as(callback.ompName()).isEqualTo(declared.get(name));
            }
            // ompd-facts.md, measured with a probe tool on libomp 19.1.7 (and holding on later ones); older
            // libomp declares the device and target callbacks, and dispatch, unimplemented: the check above
            if (version < 19) {
                continue;
            }
            boolean never = callback == OmptCallback.DEVICE_UNLOAD || callback == OmptCallback.TARGET_MAP
                    || callback == OmptCallback.TARGET_MAP_EMI;
            soft.assertThat(registration).as(callback.ompName() + " per ompd-facts.md")
                    .isEqualTo(never ? Registration.NEVER : Registration.ALWAYS);
        }
        soft.assertAll();
    }
}
