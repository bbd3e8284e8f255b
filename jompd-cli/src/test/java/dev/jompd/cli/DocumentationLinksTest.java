package dev.jompd.cli;

import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.FileVisitResult;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every page of docs/ that the shipped code (its messages, comments and scripts: src/main) or the README sends the
 * reader to exists: a permission-denied detail points at docs/security.md, and a reader sent to a page that is not
 * there is left with nothing. The README lists the security page with the others. (The team's notes in
 * ../shared/docs are not this repository's pages.)
 */
class DocumentationLinksTest {
    private static final Pattern PAGE = Pattern.compile("(?<!shared/)docs/([a-z0-9-]+\\.md)");
    private static final Set<String> SOURCES = Set.of(".java", ".c", ".py", ".ts", ".sh", ".md");
    private static final Set<String> SKIPPED = Set.of("target", "out", "node_modules", ".git", ".cifuzz-corpus", "test");

    @Test
    void everyDocsPageTheShippedCodeOrReadmeNamesExists() throws IOException {
        Path root = Runtimes.repositoryRoot();
        TreeMap<String, Set<Path>> missing = new TreeMap<>();
        for (Path file : sources(root)) {
            Matcher pages = PAGE.matcher(Files.readString(file));
            while (pages.find()) {
                if (!Files.isRegularFile(root.resolve("docs").resolve(pages.group(1)))) {
                    missing.computeIfAbsent(pages.group(0), page -> new TreeSet<>()).add(root.relativize(file));
                }
            }
        }
        assertThat(missing).as("pages named but missing, and where").isEmpty();
    }

    @Test
    void theReadmeListsTheSecurityPage() throws IOException {
        String readme = Files.readString(Runtimes.repositoryRoot().resolve("README.md"));
        assertThat(readme.lines().filter(line -> line.startsWith("| [docs/security.md](docs/security.md) |")).count())
                .isEqualTo(1);
    }

    /** The repository's sources and pages: not what builds make (target/, out/, node_modules/) nor .git. */
    private static List<Path> sources(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                String name = directory.getFileName() == null ? "" : directory.getFileName().toString();
                return SKIPPED.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                boolean shipped = root.relativize(file).toString().matches("[^/]+/src/main/.*")
                        || file.equals(root.resolve("README.md"));
                if (shipped && attributes.isRegularFile() && SOURCES.stream().anyMatch(file.toString()::endsWith)) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }
}
