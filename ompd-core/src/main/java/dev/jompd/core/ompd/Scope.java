package dev.jompd.core.ompd;

/** OMPD scopes ({@code ompd_scope_t}) with their numeric values. */
public enum Scope {
    GLOBAL(1), ADDRESS_SPACE(2), THREAD(3), PARALLEL(4), IMPLICIT_TASK(5), TASK(6);

    private final int code;

    Scope(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public String cName() {
        return "ompd_scope_" + name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The scope a handle object stands for. */
    public static Scope of(Object handle) {
        // instanceof, not a pattern switch: that one's dispatch class is made at run time (cold start)
        if (handle instanceof AddressSpaceHandle) {
            return ADDRESS_SPACE;
        }
        if (handle instanceof ThreadHandle) {
            return THREAD;
        }
        if (handle instanceof ParallelHandle) {
            return PARALLEL;
        }
        if (handle instanceof TaskHandle) {
            return TASK;
        }
        throw new OmpdException(OmpdRc.BAD_INPUT, "not an OMPD handle: " + handle);
    }
}
