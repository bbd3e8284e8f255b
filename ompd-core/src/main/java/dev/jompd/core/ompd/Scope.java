package dev.jompd.core.ompd;

/** OMPD scopes ({@code ompd_scope_t}) with their numeric values. */
public enum Scope {
    GLOBAL(1), ADDRESS_SPACE(2), THREAD(3), PARALLEL(4), IMPLICIT_TASK(5), TASK(6),
    /** OpenMP 6.0: a parallel handle of the implicit parallel region of a teams construct's team. */
    TEAMS(7);

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
}
