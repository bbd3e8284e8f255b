package dev.jompd.job.sources;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.core.CoreFileAddressSpace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The core files of a job: which files, which rank each one is, and whether one is cut short. */
public final class CoreFiles {
    /** A rank number in a file name: {@code rank3}, {@code rank-3}, {@code rank_3}, {@code rank.3}, {@code core.rank.12}. */
    private static final Pattern RANK_IN_NAME = Pattern.compile("rank[-_.]?(\\d{1,9})", Pattern.CASE_INSENSITIVE);
    private static final int MAX_ENVIRONMENT_ENTRIES = 100_000;
    private static final int MAX_ENVIRONMENT_STRING = 128 * 1024;
    private static final int MAX_CORES = 1_000_000;

    private CoreFiles() {}

    /**
     * The core files {@code where} names: every regular file of a directory that starts with ELF's magic, or the
     * files a glob ({@code /tmp/job/core.*}) matches; sorted by name.
     */
    public static List<Path> find(String where) throws IOException {
        Path path = Path.of(where);
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(path)) {
            try (Stream<Path> entries = Files.list(path)) {
                entries.filter(Files::isRegularFile).filter(CoreFiles::isElf).limit(MAX_CORES).forEach(found::add);
            }
        } else if (Files.isRegularFile(path)) {
            found.add(path);
        } else {
            Path directory = path.getParent() == null ? Path.of(".") : path.getParent();
            if (!Files.isDirectory(directory)) {
                throw new IOException("no such directory: " + directory);
            }
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + path.getFileName());
            try (Stream<Path> entries = Files.list(directory)) {
                entries.filter(p -> matcher.matches(p.getFileName())).filter(Files::isRegularFile).limit(MAX_CORES)
                        .forEach(found::add);
            }
        }
        found.sort(Comparator.comparing(Path::toString));
        return found;
    }

    private static boolean isElf(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer magic = ByteBuffer.allocate(4);
            channel.read(magic, 0);
            return magic.array()[0] == 0x7f && magic.array()[1] == 'E' && magic.array()[2] == 'L' && magic.array()[3] == 'F';
        } catch (IOException e) {
            return false;
        }
    }

    /** The rank a file's name gives ({@code core.rank-3}), if it gives one. */
    public static OptionalInt rankFromName(Path core) {
        Matcher matcher = RANK_IN_NAME.matcher(core.getFileName().toString());
        OptionalInt rank = OptionalInt.empty();
        while (matcher.find()) {
            rank = OptionalInt.of(Integer.parseInt(matcher.group(1))); // the last one: directories of cores of cores
        }
        return rank;
    }

    /** The rank the process's own environment (in the core) gives, then the file name; and where it came from. */
    public static RankSource rankOf(Path core) {
        return originOf(core).rank();
    }

    /**
     * Who a core's process was: its rank (from its environment, then the file name), the node its environment
     * names ({@link RankEnvironment#node}), and its program as the core records it.
     */
    public static CoreOrigin originOf(Path core) {
        Optional<String> node = Optional.empty();
        Optional<Program> program = Optional.empty();
        try (CoreFileAddressSpace space = CoreFileAddressSpace.open(core)) {
            Map<String, String> environment = environment(space);
            node = RankEnvironment.node(environment);
            program = space.executable().map(module -> new Program(module.path().toString(), module.buildId()));
            Optional<RankSource> fromEnvironment = RankEnvironment.rank(environment);
            if (fromEnvironment.isPresent()) {
                return new CoreOrigin(fromEnvironment.get(), node, program);
            }
        } catch (RuntimeException e) {
            // a damaged core: the name may still say which rank it was; its inspection says what is wrong
        }
        OptionalInt fromName = rankFromName(core);
        return new CoreOrigin(new RankSource(fromName, fromName.isPresent() ? "the file name"
                : "nothing (no rank variable, no rank in the name)"), node, program);
    }

    /** Where a core came from: its rank, the node its process ran on (when known), its program (when recorded). */
    public record CoreOrigin(RankSource rank, Optional<String> node, Optional<Program> program) {}

    /**
     * A core's program: the executable's path as the core records it, and its GNU build id when it has one. Two
     * cores are of the same program when their build ids are equal, or, without build ids, their paths.
     */
    public record Program(String path, Optional<String> buildId) {
        /** What tells programs apart. */
        public String identity() {
            return buildId.map(id -> "build-id " + id).orElse(path);
        }
    }

    /** A rank and what said so. */
    public record RankSource(OptionalInt rank, String origin) {}

    /**
     * The process's environment as it was when it dumped: the strings glibc's {@code __environ} points to
     * (read through the core; bounded in count and length).
     */
    static Map<String, String> environment(AddressSpace space) {
        Map<String, String> environment = new LinkedHashMap<>();
        Optional<TargetSymbol> symbol = space.lookupSymbol("__environ", "libc");
        if (symbol.isEmpty()) {
            symbol = space.lookupSymbol("environ");
        }
        if (symbol.isEmpty()) {
            return environment;
        }
        byte[] pointer = new byte[8];
        space.read(symbol.get().address(), pointer, 0, 8);
        // char **__environ
        long array = ByteBuffer.wrap(pointer).order(ByteOrder.LITTLE_ENDIAN).getLong();
        for (int i = 0; array != 0 && i < MAX_ENVIRONMENT_ENTRIES; i++) {
            space.read(array + 8L * i, pointer, 0, 8);
            long string = ByteBuffer.wrap(pointer).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (string == 0) {
                break;
            }
            String entry = readString(space, string);
            int equals = entry.indexOf('=');
            if (equals > 0) {
                environment.putIfAbsent(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        return environment;
    }

    /** A NUL-terminated string, read a page at most at a time (the environment ends where the stack's mapping ends). */
    static String readString(AddressSpace space, long address) {
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[256];
        long at = address;
        while (text.size() < MAX_ENVIRONMENT_STRING) {
            int length = (int) Math.min(chunk.length, 4096 - (at & 4095)); // never across a page boundary
            space.read(at, chunk, 0, length);
            for (int i = 0; i < length; i++) {
                if (chunk[i] == 0) {
                    text.write(chunk, 0, i);
                    return text.toString(StandardCharsets.UTF_8);
                }
            }
            text.write(chunk, 0, length);
            at += length;
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    /**
     * Why a core is cut short, or empty when every segment's bytes are in the file (an ELF64 core: its
     * program headers give each segment's file offset and size).
     */
    public static Optional<String> truncation(Path core) {
        try (FileChannel channel = FileChannel.open(core, StandardOpenOption.READ)) {
            long size = channel.size();
            ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            if (channel.read(header, 0) < 64 || header.getInt(0) != 0x464c457f) {
                return Optional.of("core " + core + " is not an ELF file (" + size + " bytes)");
            }
            if (header.get(4) != 2 || header.get(5) != 1) {
                return Optional.of("core " + core + " is not a 64-bit little-endian ELF file");
            }
            long phoff = header.getLong(32);
            int phentsize = Short.toUnsignedInt(header.getShort(54));
            int phnum = Short.toUnsignedInt(header.getShort(56));
            if (phentsize < 56 || phnum == 0 || phoff <= 0 || phoff + (long) phentsize * phnum > size) {
                return Optional.of("core " + core + " is cut short: its program headers (at " + phoff + ", " + phnum
                        + " of them) are not within its " + size + " bytes");
            }
            ByteBuffer headers = ByteBuffer.allocate(phentsize * phnum).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(headers, phoff);
            long needed = 0;
            for (int i = 0; i < phnum; i++) {
                int base = i * phentsize;
                long offset = headers.getLong(base + 8);
                long fileSize = headers.getLong(base + 32);
                needed = Math.max(needed, offset + fileSize);
            }
            if (needed > size) {
                return Optional.of("core " + core + " is cut short: " + size + " of the " + needed
                        + " bytes its segments need (a dump that stopped early: disk full, ulimit -c, a killed gcore)");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("core " + core + " cannot be read: " + e.getMessage());
        }
    }
}
