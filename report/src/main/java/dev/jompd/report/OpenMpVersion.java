package dev.jompd.report;

/**
 * The OpenMP version a runtime reports ({@code _OPENMP}-style yyyymm), in the words users know (the table:
 * {@link dev.jompd.core.ompd.OpenMpVersion}): libomp reports 201611, the OpenMP 5.0 preview of November 2016
 * (Technical Report 4).
 */
public record OpenMpVersion(long yyyymm) {
    /** {@code OpenMP 5.0 preview (TR4), 201611}; an unknown value as {@code OpenMP 202611}; -1 unreadable. */
    public String words() {
        if (yyyymm < 0) {
            return "OpenMP version unreadable";
        }
        return dev.jompd.core.ompd.OpenMpVersion.of(yyyymm).map(version -> version.words() + ", " + yyyymm)
                .orElse("OpenMP " + yyyymm);
    }
}
