package dev.jompd.testkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One way to run a fixture: its argv, extra environment and the libomp version it runs on.
 * {@code OMP_DEBUG=enabled} is always set (libomp tracks OMPT state only then) unless given otherwise.
 */
public record FixtureRun(Fixture fixture, List<String> arguments, Map<String, String> environment,
                         int runtimeVersion) {

    public FixtureRun {
        arguments = List.copyOf(arguments);
        environment = Map.copyOf(environment);
    }

    public static FixtureRun of(Fixture fixture, String... arguments) {
        return new FixtureRun(fixture, List.of(arguments), Map.of(), Runtimes.DEFAULT_VERSION);
    }

    public FixtureRun withEnvironment(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(environment);
        copy.put(name, value);
        return new FixtureRun(fixture, arguments, copy, runtimeVersion);
    }

    public FixtureRun onRuntime(int version) {
        return new FixtureRun(fixture, arguments, environment, version);
    }

    /**
     * The environment the program runs with: OMP_DEBUG=enabled plus this run's settings. One malloc
     * arena: glibc reserves 64 MiB per thread arena and gdb's gcore writes those reserves into the core,
     * so a 16-thread fixture's core shrinks from 1.1 GiB to about 0.1 GiB. OpenMP is not affected.
     */
    Map<String, String> programEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OMP_DEBUG", "enabled");
        env.put("MALLOC_ARENA_MAX", "1");
        env.putAll(environment);
        return env;
    }

    /** A short name for files and messages, such as {@code nested-4-4}. */
    public String label() {
        StringBuilder label = new StringBuilder(fixture.programName());
        arguments.forEach(argument -> label.append('-').append(argument.replaceAll("[^A-Za-z0-9]", "_")));
        if (!environment.isEmpty()) {
            label.append("-env").append(Integer.toHexString(environment.hashCode()));
        }
        if (runtimeVersion != Runtimes.DEFAULT_VERSION) {
            label.append("-llvm").append(runtimeVersion);
        }
        return label.toString();
    }

    @Override
    public String toString() {
        return label();
    }
}
