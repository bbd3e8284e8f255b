package dev.jompd.core.ompd;

import java.util.OptionalLong;

/**
 * An OMPD operation that did not answer {@code ompd_rc_ok}: the return code, and a message that says
 * which runtime field or address failed where memory is involved.
 */
public class OmpdException extends RuntimeException {
    private final OmpdRc rc;
    private final OptionalLong address;

    public OmpdException(OmpdRc rc, String message) {
        this(rc, message, OptionalLong.empty(), null);
    }

    public OmpdException(OmpdRc rc, String message, OptionalLong address, Throwable cause) {
        super(rc.cName() + ": " + message, cause);
        this.rc = rc;
        this.address = address;
    }

    public OmpdRc rc() {
        return rc;
    }

    /** The target address involved, when the failure was a read. */
    public OptionalLong address() {
        return address;
    }
}
