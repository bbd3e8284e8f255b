package dev.jompd.report;

import java.util.Map;

/**
 * The OpenMP version a runtime reports ({@code _OPENMP}-style yyyymm), in the words users know: libomp
 * reports 201611, which is the OpenMP 5.0 preview of November 2016 (Technical Report 4).
 */
public record OpenMpVersion(long yyyymm) {
    private static final Map<Long, String> NAMES = Map.ofEntries(
            Map.entry(199810L, "OpenMP 1.0"), Map.entry(200011L, "OpenMP 2.0"), Map.entry(200505L, "OpenMP 2.5"),
            Map.entry(200805L, "OpenMP 3.0"), Map.entry(201107L, "OpenMP 3.1"), Map.entry(201307L, "OpenMP 4.0"),
            Map.entry(201511L, "OpenMP 4.5"), Map.entry(201611L, "OpenMP 5.0 preview (TR4)"),
            Map.entry(201711L, "OpenMP 5.0 preview 2 (TR6)"), Map.entry(201811L, "OpenMP 5.0"),
            Map.entry(202011L, "OpenMP 5.1"), Map.entry(202111L, "OpenMP 5.2"), Map.entry(202411L, "OpenMP 6.0"));

    /** {@code OpenMP 5.0 preview (TR4), 201611}; an unknown value as {@code OpenMP 202611}; -1 unreadable. */
    public String words() {
        if (yyyymm < 0) {
            return "OpenMP version unreadable";
        }
        String name = NAMES.get(yyyymm);
        return name != null ? name + ", " + yyyymm : "OpenMP " + yyyymm;
    }
}
