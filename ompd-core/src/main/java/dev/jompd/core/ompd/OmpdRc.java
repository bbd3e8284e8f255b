package dev.jompd.core.ompd;

/**
 * OMPD's return codes ({@code ompd_rc_t}, OpenMP 5.1 §5.3.12), with their numeric values; OpenMP 6.0 added
 * {@code ompd_rc_incompatible_handle} (13), which only debuggers that asked for api 6.0 may be answered.
 */
public enum OmpdRc {
    OK(0), UNAVAILABLE(1), STALE_HANDLE(2), BAD_INPUT(3), ERROR(4), UNSUPPORTED(5), NEEDS_STATE_TRACKING(6),
    INCOMPATIBLE(7), DEVICE_READ_ERROR(8), DEVICE_WRITE_ERROR(9), NOMEM(10), INCOMPLETE(11), CALLBACK_ERROR(12),
    INCOMPATIBLE_HANDLE(13);

    private final int code;

    OmpdRc(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The C name, such as {@code ompd_rc_stale_handle}. */
    public String cName() {
        return "ompd_rc_" + name().toLowerCase(java.util.Locale.ROOT);
    }
}
