package dev.jompd.dap.openmp;

import java.util.List;

/** One OpenMP scope of a frame ("OpenMP task", ...) and its rows. */
public record OmpScope(String name, List<OmpVariable> variables) {
    public static final String TASK = "OpenMP task";
    public static final String PARALLEL = "OpenMP parallel region";
    public static final String THREAD = "OpenMP thread";
    public static final String PROCESS = "OpenMP process";
}
