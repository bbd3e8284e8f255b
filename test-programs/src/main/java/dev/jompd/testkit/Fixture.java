package dev.jompd.testkit;

/** The fixture programs in {@code test-programs/src/main/c}: see FIXTURES.md there for argv and facts. */
public enum Fixture {
    SERIAL("serial.c"),
    PARALLEL("parallel.c"),
    NESTED("nested.c"),
    SERIALIZED("serialized.c"),
    TASKS("tasks.c"),
    WAITS("waits.c"),
    ICVS("icvs.c"),
    TEAMS("teams.c"),
    OMPT_TOOL("ompt_tool.c"),
    NESTED_FORTRAN("nested_fortran.f90"),
    RECORDER_EVENTS("recorder_events.c"),
    RECORDER_DEADLOCK("recorder_deadlock.c"),
    RECORDER_CONTROL("recorder_control.c"),
    RECORDER_CONTROL_FORTRAN("recorder_control_fortran.f90"),
    /** Built with host offload against Debian's LLVM 19 runtime, not the OMPD build (see FIXTURES.md). */
    RECORDER_OFFLOAD("recorder_offload.c");

    private final String source;

    Fixture(String source) {
        this.source = source;
    }

    /** The main source file's name. */
    public String source() {
        return source;
    }

    /** The executable's name. */
    public String programName() {
        return source.substring(0, source.lastIndexOf('.'));
    }

    /** Target regions offloaded to the host: built against Debian's libomp and libomptarget. */
    public boolean isOffload() {
        return this == RECORDER_OFFLOAD;
    }

    public boolean isFortran() {
        return source.endsWith(".f90");
    }
}
