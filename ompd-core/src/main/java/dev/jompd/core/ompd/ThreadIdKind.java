package dev.jompd.core.ompd;

/** Kinds of OS thread ids ({@code ompd_thread_id_t}); GTID is jompd's implementation-defined kind. */
public enum ThreadIdKind {
    /** pthread_t (OMPD_THREAD_ID_PTHREAD). */
    PTHREAD(0),
    /** The kernel's thread id (OMPD_THREAD_ID_LWP). */
    LWP(1),
    /** OMPD_THREAD_ID_WINTHREAD: never on a Linux target. */
    WINTHREAD(2),
    /** libomp's global thread id, in the implementation-defined range (OMPD_THREAD_ID_LO). */
    GTID(1_000_000);

    private final long code;

    ThreadIdKind(long code) {
        this.code = code;
    }

    public long code() {
        return code;
    }
}
