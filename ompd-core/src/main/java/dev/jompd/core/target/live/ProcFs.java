package dev.jompd.core.target.live;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@code /proc} says about a process: its threads, their states, its mappings and credentials. The one reader
 * of {@code /proc} for every module (the live backend, the job's agents and its training): what it publishes is read
 * and parsed here only.
 */
public final class ProcFs {
    private static final Path PROC = Path.of("/proc");
    private static final int CAP_SYS_PTRACE = 19;
    private static final int READ_SIZE = 64 * 1024;

    private ProcFs() {}

    static Path processDirectory(int pid) {
        return PROC.resolve(Integer.toString(pid));
    }

    static boolean exists(int pid) {
        return Files.isDirectory(processDirectory(pid));
    }

    /**
     * The thread ids in {@code /proc/PID/task}, in the kernel's order (the thread group leader first).
     * Empty when the process is gone.
     */
    public static List<Integer> threadIds(int pid) {
        List<Integer> tids = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(processDirectory(pid).resolve("task"))) {
            for (Path task : tasks) {
                try {
                    tids.add(Integer.parseInt(task.getFileName().toString()));
                } catch (NumberFormatException ignored) {
                    // not a thread directory
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        // The leader first (its tid is the pid), then in tid order: stable across re-scans.
        tids.sort((a, b) -> a == pid ? -1 : b == pid ? 1 : Integer.compare(a, b));
        return tids;
    }

    /**
     * The one-letter state of a thread ({@code R}, {@code S}, {@code D}, {@code T} stopped,
     * {@code t} tracing stop, {@code Z} zombie, ...) from {@code /proc/PID/task/TID/stat}.
     */
    public static Optional<Character> threadState(int pid, int tid) {
        return read(processDirectory(pid).resolve("task").resolve(Integer.toString(tid)).resolve("stat"))
                .flatMap(ProcFs::stateOfStat);
    }

    static Optional<Character> stateOfStat(String stat) {
        // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length()) {
            return Optional.empty();
        }
        return Optional.of(stat.charAt(close + 2));
    }

    /** A numeric field of {@code /proc/PID/status} such as {@code TracerPid} or {@code PPid}. */
    static OptionalLong statusNumber(int pid, String field) {
        return statusField(processDirectory(pid).resolve("status"), field).map(value -> {
            String first = value.trim().split("\\s+")[0];
            try {
                return OptionalLong.of(Long.parseLong(first));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }).orElse(OptionalLong.empty());
    }

    /** The tracer of one thread (0 when none), from {@code /proc/PID/task/TID/status}. */
    static OptionalInt tracerOf(int pid, int tid) {
        Path status = processDirectory(pid).resolve("task").resolve(Integer.toString(tid)).resolve("status");
        return statusField(status, "TracerPid").map(value -> {
            try {
                return OptionalInt.of(Integer.parseInt(value.trim()));
            } catch (NumberFormatException e) {
                return OptionalInt.empty();
            }
        }).orElse(OptionalInt.empty());
    }

    private static Optional<String> statusField(Path status, String field) {
        return read(status).flatMap(text -> text.lines()
                .filter(line -> line.startsWith(field + ":"))
                .map(line -> line.substring(field.length() + 1))
                .findFirst());
    }

    /**
     * The process a thread belongs to (its thread group id): TracerPid names the tracer's thread, not
     * necessarily its process.
     */
    static long threadGroupOf(long tid) {
        if (tid <= 0 || tid > Integer.MAX_VALUE) {
            return tid;
        }
        return statusNumber((int) tid, "Tgid").orElse(tid);
    }

    /** The real uid of a process (first number of the {@code Uid:} line). */
    static OptionalLong uid(int pid) {
        return statusNumber(pid, "Uid");
    }

    /** A process's command name ({@code /proc/PID/comm}), such as {@code gdb}. */
    public static Optional<String> command(long pid) {
        return read(PROC.resolve(Long.toString(pid)).resolve("comm")).map(String::strip).filter(s -> !s.isEmpty());
    }

    /** The name of the user owning the process ({@code /proc/PID}'s owner). */
    public static Optional<String> ownerName(long pid) {
        try {
            return Optional.of(Files.getOwner(PROC.resolve(Long.toString(pid))).getName());
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** The executable's path ({@code /proc/PID/exe}), as the kernel names it. */
    static Optional<String> executable(int pid) {
        try {
            return Optional.of(Files.readSymbolicLink(processDirectory(pid).resolve("exe")).toString());
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** {@code /proc/sys/kernel/yama/ptrace_scope}, when the Yama LSM is present. */
    public static OptionalInt yamaPtraceScope() {
        return read(PROC.resolve("sys/kernel/yama/ptrace_scope")).map(text -> {
            try {
                return OptionalInt.of(Integer.parseInt(text.strip()));
            } catch (NumberFormatException e) {
                return OptionalInt.empty();
            }
        }).orElse(OptionalInt.empty());
    }

    /** Whether this process holds CAP_SYS_PTRACE in its effective set. */
    static boolean haveSysPtrace() {
        return statusField(PROC.resolve("self/status"), "CapEff").map(hex -> {
            try {
                return (Long.parseUnsignedLong(hex.strip(), 16) & (1L << CAP_SYS_PTRACE)) != 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }).orElse(false);
    }

    /** One line of {@code /proc/PID/maps}. */
    public record Mapping(long start, long end, String permissions, long offset, long inode, String path) {
        /** Whether a file is mapped (not the heap, a stack, an anonymous mapping). */
        public boolean fileBacked() { return inode != 0 && path.startsWith("/"); }

        boolean contains(long address) {
            return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
        }
    }

    /** The mappings of {@code /proc/PID/maps}, in address order. */
    public static List<Mapping> mappings(int pid) throws IOException {
        return parseMappings(readBytes(processDirectory(pid).resolve("maps")));
    }

    /** The mappings of a {@code /proc/PID/maps} text, one per line; lines that are no mapping are left out. */
    static List<Mapping> parseMappings(String maps) {
        return parseMappings(maps.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The mappings of a {@code /proc/PID/maps} table as the kernel wrote it, one per line; lines that are no mapping are
     * left out. Parsed by hand, on the bytes: a rank's table has hundreds of lines, every rank of a node reads its own,
     * and before the JIT has compiled it each call (a regular expression's split per line, a character accessor per
     * character) costs more than the rest of reading the rank's modules.
     */
    static List<Mapping> parseMappings(byte[] maps) {
        List<Mapping> mappings = new ArrayList<>();
        int lineStart = 0;
        while (lineStart < maps.length) {
            int lineEnd = lineStart;
            while (lineEnd < maps.length && maps[lineEnd] != '\n') {
                lineEnd++;
            }
            Mapping mapping = parseMapping(maps, lineStart, lineEnd);
            if (mapping != null) {
                mappings.add(mapping);
            }
            lineStart = lineEnd + 1;
        }
        return mappings;
    }

    /** "start-end perms offset major:minor inode   path": the path may contain spaces. */
    static Optional<Mapping> parseMapping(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return Optional.ofNullable(parseMapping(bytes, 0, bytes.length));
    }

    /**
     * The mapping of the line {@code text[from, to)}, or null: five fields separated by blanks ({@code \s} in a regular
     * expression), then the path, the rest of the line without the blanks around it. Paths are bytes: decoded leniently
     * as UTF-8 (a path that is not UTF-8 must not lose the whole table).
     */
    private static Mapping parseMapping(byte[] text, int from, int to) {
        int[] bounds = new int[10]; // start and end of the first five fields
        int at = from;
        for (int field = 0; field < 5; field++) {
            while (at < to && isBlank(text[at])) {
                at++;
            }
            if (at >= to) {
                return null;
            }
            bounds[2 * field] = at;
            while (at < to && !isBlank(text[at])) {
                at++;
            }
            bounds[2 * field + 1] = at;
        }
        int dash = bounds[0];
        while (dash < bounds[1] && text[dash] != '-') {
            dash++;
        }
        if (dash == bounds[1]) {
            return null;
        }
        try {
            long start = hex(text, bounds[0], dash);
            long end = hex(text, dash + 1, bounds[1]);
            long offset = hex(text, bounds[4], bounds[5]);
            long inode = decimal(text, bounds[8], bounds[9]);
            while (at < to && isBlank(text[at])) {
                at++;
            }
            String path = at < to ? new String(text, at, to - at, StandardCharsets.UTF_8).strip() : "";
            return new Mapping(start, end, new String(text, bounds[2], bounds[3] - bounds[2], StandardCharsets.UTF_8),
                    offset, inode, path);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** What {@code \s} matches: space, tab, line feed, vertical tab, form feed, carriage return. */
    private static boolean isBlank(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /** An unsigned hexadecimal number of 64 bits at most, as {@link Long#parseUnsignedLong(String, int)} reads one. */
    private static long hex(byte[] text, int from, int to) {
        if (from >= to) {
            throw new NumberFormatException("no digits");
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int c = text[i] | 0x20; // lower case for letters; digits keep their value
            int digit = text[i] >= '0' && text[i] <= '9' ? text[i] - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0 || (value >>> 60) != 0) {
                throw new NumberFormatException("not a 64-bit hexadecimal number");
            }
            value = value << 4 | digit;
        }
        return value;
    }

    /** A non-negative decimal number that fits a long. */
    private static long decimal(byte[] text, int from, int to) {
        if (from >= to) {
            throw new NumberFormatException("no digits");
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int digit = text[i] - '0';
            if (digit < 0 || digit > 9 || value > (Long.MAX_VALUE - digit) / 10) {
                throw new NumberFormatException("not a decimal number that fits a long");
            }
            value = value * 10 + digit;
        }
        return value;
    }

    /**
     * The user-mode stack and instruction pointers of a thread that is not running, from
     * {@code /proc/PID/task/TID/syscall} ("nr args... sp pc", or "-1 sp pc" when not in a system call;
     * "running" when it runs). Needs the same permission as reading the process's memory.
     */
    static Optional<long[]> stackAndInstructionPointer(int pid, int tid) {
        Optional<String> text = read(processDirectory(pid).resolve("task").resolve(Integer.toString(tid)).resolve("syscall"));
        if (text.isEmpty()) {
            return Optional.empty();
        }
        String[] fields = text.get().strip().split("\\s+");
        if (fields.length < 3 || fields[0].equals("running")) {
            return Optional.empty();
        }
        try {
            long sp = parseHex(fields[fields.length - 2]);
            long pc = parseHex(fields[fields.length - 1]);
            return Optional.of(new long[] {sp, pc});
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static long parseHex(String text) {
        String digits = text.startsWith("0x") ? text.substring(2) : text;
        return Long.parseUnsignedLong(digits, 16);
    }

    /**
     * A /proc file's text. Read with large reads from offset 0: sysctl files answer only a read that
     * starts at offset 0 (the JDK's {@code Files.readString} reads a size-0 file one byte first, and
     * gets "3" of "32768").
     */
    static Optional<String> read(Path file) {
        try {
            return Optional.of(new String(readBytes(file), StandardCharsets.ISO_8859_1));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static byte[] readBytes(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[READ_SIZE];
            for (int n; (n = in.read(buffer)) > 0; ) {
                bytes.write(buffer, 0, n);
            }
            return bytes.toByteArray();
        }
    }
}
