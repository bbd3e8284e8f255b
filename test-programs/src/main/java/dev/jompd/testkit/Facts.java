package dev.jompd.testkit;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.IntStream;

/**
 * What a fixture program computed about itself at run time and wrote before reaching its marker
 * ({@code key=value} lines, see FIXTURES.md): the independent truth tests compare against.
 */
public final class Facts {
    private final Properties values;

    private Facts(Properties values) {
        this.values = values;
    }

    public static Facts read(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read facts " + file, e);
        }
        return new Facts(properties);
    }

    public Optional<String> find(String key) {
        return Optional.ofNullable(values.getProperty(key));
    }

    public String get(String key) {
        return find(key).orElseThrow(() -> new NoSuchElementException("fixture recorded no fact " + key));
    }

    /** A decimal or 0x-hex number. */
    public long number(String key) {
        return parseNumber(get(key));
    }

    public int threadCount() {
        return (int) number("threads");
    }

    /** The facts of one recorded OpenMP thread, by its index in the facts file. */
    public ThreadFacts thread(int index) {
        if (index < 0 || index >= threadCount()) {
            throw new IndexOutOfBoundsException("thread " + index + " of " + threadCount());
        }
        return new ThreadFacts(index);
    }

    public List<ThreadFacts> threads() {
        return IntStream.range(0, threadCount()).mapToObj(ThreadFacts::new).toList();
    }

    /** Each thread's LWP by {@code TEAMPATH/NUM} ({@link ThreadFacts#teamPath()} and its OpenMP thread number). */
    public Map<String, Long> lwpByTeamAndNumber() {
        Map<String, Long> lwps = new java.util.TreeMap<>();
        threads().forEach(thread -> lwps.put(thread.teamPath() + "/" + thread.threadNum(), thread.lwp()));
        return lwps;
    }

    public Optional<ThreadFacts> threadWithLwp(long lwp) {
        return threads().stream().filter(thread -> thread.lwp() == lwp).findFirst();
    }

    public Properties asProperties() {
        Properties copy = new Properties();
        copy.putAll(values);
        return copy;
    }

    static long parseNumber(String text) {
        String trimmed = text.trim();
        return trimmed.startsWith("0x") || trimmed.startsWith("0X")
                ? Long.parseUnsignedLong(trimmed.substring(2), 16)
                : Long.parseLong(trimmed);
    }

    /** Facts of one OpenMP thread: {@code thread.<k>.*}. */
    public final class ThreadFacts {
        private final int index;

        ThreadFacts(int index) {
            this.index = index;
        }

        public int index() { return index; }

        public String get(String field) { return Facts.this.get("thread." + index + "." + field); }

        public Optional<String> find(String field) { return Facts.this.find("thread." + index + "." + field); }

        public long number(String field) { return parseNumber(get(field)); }

        public long lwp() { return number("lwp"); }

        public long pthread() { return number("pthread"); }

        public int threadNum() { return (int) number("thread_num"); }

        public int level() { return (int) number("level"); }

        public int activeLevel() { return (int) number("active_level"); }

        public int teamSize() { return (int) number("team_size"); }

        public String role() { return get("role"); }

        /** omp_get_ancestor_thread_num(1..level). */
        public List<Integer> ancestors() { return intList(find("ancestors").orElse("")); }

        /**
         * The team path as the doors write it: the ancestor thread numbers above this thread's own team, from
         * level 1 inward ({@code 0.1}); empty at levels 0 and 1.
         */
        public String teamPath() {
            List<Integer> ancestors = ancestors();
            return String.join(".", ancestors.subList(0, Math.max(0, level() - 1)).stream().map(String::valueOf).toList());
        }

        /** omp_get_team_size(1..level). */
        public List<Integer> teamSizes() { return intList(find("team_sizes").orElse("")); }

        @Override
        public String toString() {
            return "thread " + index + " (lwp " + find("lwp").orElse("?") + ")";
        }
    }

    private static List<Integer> intList(String text) {
        return text.isBlank() ? List.of()
                : Arrays.stream(text.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }
}
