package dev.jompd.dap.openmp;

import java.util.List;

/** One row of an OpenMP scope: a name, its value as text, a type label, and rows below it. */
public record OmpVariable(String name, String value, String type, List<OmpVariable> children) {
    public OmpVariable {
        children = List.copyOf(children);
    }

    static OmpVariable leaf(String name, String value, String type) {
        return new OmpVariable(name, value, type, List.of());
    }
}
