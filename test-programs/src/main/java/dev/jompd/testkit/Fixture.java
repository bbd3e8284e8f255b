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
    /** With the jompd-recorder: a thread runs a task inside its own taskwait (and calls the marker there). */
    RECORDER_TASKWAIT("recorder_taskwait.c"),
    /** Hang fixture: a lock-order deadlock over omp_lock_t (or omp_nest_lock_t), no recorder. */
    LOCK_DEADLOCK("lock_deadlock.c"),
    /** Hang fixture: a barrier inside a critical section the rest of the team waits to enter. */
    CRITICAL_BARRIER("critical_barrier.c"),
    /** Hang fixture: threads wait to enter critical(big) and the unnamed critical, both held. */
    CRITICAL_NAMES("critical_names.c"),
    RECORDER_CONTROL("recorder_control.c"),
    RECORDER_CONTROL_FORTRAN("recorder_control_fortran.f90"),
    /** Built with host offload against Debian's LLVM 19 runtime, not the OMPD build (see FIXTURES.md). */
    RECORDER_OFFLOAD("recorder_offload.c"),
    /** nested.c built by gcc -fopenmp: linked against GCC's libgomp; run it on libomp with jompd run. */
    NESTED_GCC("nested.c", "nested_gcc", Toolchain.GCC),
    /** tasks.c built by gcc -fopenmp (libgomp; jompd run). */
    TASKS_GCC("tasks.c", "tasks_gcc", Toolchain.GCC),
    /** nested_fortran.f90 built by gfortran -fopenmp as users do: linked against GCC's libgomp. */
    NESTED_FORTRAN_GCC("nested_fortran.f90", "nested_fortran_gcc", Toolchain.GCC),
    /** C++ names and clang's task thunk, built by clang++. */
    CXX_TASKS("cxx_tasks.cpp"),
    /** C++ names: a region in a class template's member function in a namespace, its threads in a lambda. */
    CXX_NAMES("cxx_names.cpp"),
    /** C++ clauses: firstprivate copies made by copy constructors (a header's, the fixture's), a reduction. */
    CXX_FIRSTPRIVATE("cxx_firstprivate.cpp"),
    /** BOTS fib's two task constructs calling one function; tests build it -O2 (each task's code inlined). */
    FIB_TASKS("fib_tasks.c"),
    /** Explicit tasks created and not started: in two threads' deques, and waiting for their dependences. */
    DEFERRED_TASKS("deferred_tasks.c"),
    /** Hang fixtures (FIXTURES.md, "Hang fixtures"): real hangs, each with its expected diagnosis in its facts. */
    BARRIER_STRAGGLER("barrier_straggler.c"),
    TASKWAIT_BLOCKED("taskwait_blocked.c"),
    NESTED_HANG("nested_hang.c"),
    /** Fortran (.F90: gfortran preprocesses it, so the facts name lines with __LINE__). */
    HANG_FORTRAN("hang_fortran.F90"),
    /** The wait matrix: threads blocked in each construct that can wait (CONSTRUCT WHERE [N]), each wait in the facts. */
    HANG_CONSTRUCTS("hang_constructs.c"),
    /** hang_constructs.c built by gcc -fopenmp (libgomp; run it on libomp with jompd run). */
    HANG_CONSTRUCTS_GCC("hang_constructs.c", "hang_constructs_gcc", Toolchain.GCC);

    /** Who compiles and links a fixture, and so which OpenMP runtime it is linked against. */
    public enum Toolchain {
        /** clang-19 / clang++-19 (gfortran for Fortran), linked against the OMPD-enabled libomp. */
        LLVM,
        /** gcc / gfortran with -fopenmp, linked against GCC's libgomp. */
        GCC
    }

    private final String source;
    private final String programName;
    private final Toolchain toolchain;

    Fixture(String source) {
        this(source, source.substring(0, source.lastIndexOf('.')), Toolchain.LLVM);
    }

    Fixture(String source, String programName, Toolchain toolchain) {
        this.source = source;
        this.programName = programName;
        this.toolchain = toolchain;
    }

    public Toolchain toolchain() {
        return toolchain;
    }

    /** The main source file's name. */
    public String source() {
        return source;
    }

    /** The executable's name. */
    public String programName() {
        return programName;
    }

    /** Target regions offloaded to the host: built against Debian's libomp and libomptarget. */
    public boolean isOffload() {
        return this == RECORDER_OFFLOAD;
    }

    public boolean isFortran() {
        return source.endsWith(".f90") || source.endsWith(".F90");
    }

    public boolean isCxx() {
        return source.endsWith(".cpp");
    }
}
