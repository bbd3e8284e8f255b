package dev.jompd.core.ompd;

import java.util.OptionalLong;

/**
 * An OMPD operation that did not answer {@code ompd_rc_ok}: the return code, and a message that says
 * which runtime field or address failed where memory is involved.
 */
public class OmpdException extends RuntimeException {
    private static final java.util.Set<OmpdRc> EXPECTED_ANSWERS =
            java.util.EnumSet.of(OmpdRc.UNAVAILABLE, OmpdRc.NEEDS_STATE_TRACKING, OmpdRc.INCOMPATIBLE);

    private final OmpdRc rc;
    private final String reason;
    private final OptionalLong address;

    public OmpdException(OmpdRc rc, String message) {
        this(rc, message, OptionalLong.empty(), null);
    }

    public OmpdException(OmpdRc rc, String message, OptionalLong address, Throwable cause) {
        // Answers that only say "not here" (the outermost region's parent, states without OMP_DEBUG,
        // the string-only ICVs' integer form) are part of normal walks: no stack trace to fill.
        super(rc.cName() + ": " + message, cause, true, !EXPECTED_ANSWERS.contains(rc));
        this.rc = rc;
        this.reason = message;
        this.address = address;
    }

    /**
     * What went wrong in words, without OMPD's return code: what a user reads ({@link #getMessage()} keeps the
     * code first, for logs and tools that speak OMPD).
     */
    public String reason() {
        return reason;
    }

    /**
     * What a user reads of a failure: an OMPD failure's {@link #reason()} (no return code), another's message. For
     * problems and values shown in every door (ompd_rc_* is the API's word, not the user's).
     */
    public static String words(RuntimeException failure) {
        return failure instanceof OmpdException ompd ? ompd.reason() : failure.getMessage();
    }

    public OmpdRc rc() {
        return rc;
    }

    /** The target address involved, when the failure was a read. */
    public OptionalLong address() {
        return address;
    }
}
