package dev.jompd.job.sources;

import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.core.CoreFileChecks;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The core files of a job: which files, and which rank each one is (whether one is cut short: {@link CoreFileChecks}). */
public final class CoreFiles {
    /** A rank number in a file name: {@code rank3}, {@code rank-3}, {@code rank_3}, {@code rank.3}, {@code core.rank.12}. */
    private static final Pattern RANK_IN_NAME = Pattern.compile("rank[-_.]?(\\d{1,9})", Pattern.CASE_INSENSITIVE);
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
                entries.filter(Files::isRegularFile).filter(CoreFileChecks::isElf).limit(MAX_CORES).forEach(found::add);
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
            Map<String, String> environment = dev.jompd.core.target.ProcessEnvironment.read(space);
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

}
