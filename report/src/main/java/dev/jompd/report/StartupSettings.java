package dev.jompd.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The runtime's "display control variables" (OMPD's name for them) for what they are: libomp's record of
 * its OMP_* and KMP_* settings made when it initialised, <em>before</em> it read the environment — so they
 * show the defaults of that moment (e.g. {@code OMP_NUM_THREADS} undefined), not what is in effect. What is
 * in effect are the ICVs.
 */
public record StartupSettings(List<String> lines, List<Setting> settings, Map<String, String> environment,
                              Optional<String> environmentNotRead) {
    /** The section's name: what these values are, not what they might be taken for. */
    public static final String HEADING = "libomp's defaults";
    public static final String LABEL = "recorded when libomp started, before it read OMP_* and KMP_* from the "
            + "environment (OMPD's display control variables): not what the program runs with, which the ICVs above show";

    /** The section of the program's own settings: what it is. */
    public static final String ENVIRONMENT_HEADING = "OpenMP environment";
    public static final String ENVIRONMENT_LABEL = "the OMP_* and KMP_* variables of the program's environment "
            + "(what its getenv reads, as libomp did at start-up; omp_set_* calls since change the ICVs, not these)";

    /** Whether an environment variable is one of OpenMP's or libomp's settings. */
    static boolean openMpSetting(String name) {
        return name.startsWith("OMP_") || name.startsWith("KMP_");
    }

    /** One {@code NAME=value}; {@code value} is empty when the line has none. */
    public record Setting(String name, String value) {
        /** The value for people: {@code (null)} (libomp's spelling of "not set") shown as such. */
        public String shown() {
            String bare = value.length() >= 2 && value.startsWith("'") && value.endsWith("'")
                    ? value.substring(1, value.length() - 1) : value;
            return bare.equals("(null)") ? "(not set)" : Text.quotedIfEmpty(value);
        }
    }

    /**
     * @param environment the process's environment (all of it: the OpenMP settings are kept), or empty with
     *                    {@code notRead} saying why it could not be read
     */
    static StartupSettings of(List<String> lines, Map<String, String> environment, Optional<String> notRead) {
        Map<String, String> settingsOf = new LinkedHashMap<>();
        environment.forEach((name, value) -> {
            if (openMpSetting(name)) {
                settingsOf.put(name, value);
            }
        });
        List<Setting> settings = new ArrayList<>();
        for (String line : lines) {
            int equals = line.indexOf('=');
            settings.add(equals > 0 ? new Setting(line.substring(0, equals).strip(), line.substring(equals + 1).strip())
                    : new Setting(line.strip(), ""));
        }
        return new StartupSettings(List.copyOf(lines), List.copyOf(settings),
                java.util.Collections.unmodifiableMap(settingsOf), notRead);
    }
}
