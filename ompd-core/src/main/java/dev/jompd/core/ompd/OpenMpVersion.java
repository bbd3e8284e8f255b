package dev.jompd.core.ompd;

import java.util.Optional;

/**
 * The versions of the OpenMP specification, by the date ({@code yyyymm}, as {@code _OPENMP} and
 * {@code ompd_get_omp_version} give it) and in the words users know: the one table of them. A runtime reports
 * one ({@link Ompd#ompVersionString}, the report's version line: libomp reports 201611, the OpenMP 5.0 preview of
 * November 2016, Technical Report 4); a debugger gives {@code ompd_initialize} the api version of the OMPD chapter
 * it was written for (5.0 on), which decides the ICV names it sees ({@link Icv#nameIn}).
 */
public enum OpenMpVersion {
    V1_0(199810, "1.0"), V2_0(200011, "2.0"), V2_5(200505, "2.5"), V3_0(200805, "3.0"), V3_1(201107, "3.1"),
    V4_0(201307, "4.0"), V4_5(201511, "4.5"), V5_0_TR4(201611, "5.0 preview (TR4)"),
    V5_0_TR6(201711, "5.0 preview 2 (TR6)"), V5_0(201811, "5.0"), V5_1(202011, "5.1"), V5_2(202111, "5.2"),
    V6_0(202411, "6.0");

    private final long apiVersion;
    private final String number;

    OpenMpVersion(long apiVersion, String number) {
        this.apiVersion = apiVersion;
        this.number = number;
    }

    /** The version's date, {@code yyyymm}. */
    public long apiVersion() {
        return apiVersion;
    }

    /** {@code 5.1}, {@code 5.0 preview (TR4)}. */
    public String number() {
        return number;
    }

    /** {@code OpenMP 5.1}. */
    public String words() {
        return "OpenMP " + number;
    }

    /** Whether this is a preview (a technical report), not a release of the specification. */
    public boolean preview() {
        return number.contains("preview");
    }

    /** The version of date {@code yyyymm}, when it is one. */
    public static Optional<OpenMpVersion> of(long yyyymm) {
        for (OpenMpVersion version : values()) {
            if (version.apiVersion == yyyymm) {
                return Optional.of(version);
            }
        }
        return Optional.empty();
    }

    /** The latest version with an OMPD chapter whose api version is at most {@code apiVersion} (5.0 for anything older). */
    public static OpenMpVersion ofApiVersion(long apiVersion) {
        OpenMpVersion known = V5_0;
        for (OpenMpVersion version : values()) {
            if (version.compareTo(V5_0) >= 0 && version.apiVersion <= apiVersion) {
                known = version;
            }
        }
        return known;
    }
}
