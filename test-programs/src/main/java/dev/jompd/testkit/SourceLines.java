package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Lines of the fixtures' sources, found by their text: tests name a line by what it says, not a number. */
public final class SourceLines {
    private SourceLines() {}

    /** The source file {@code file} (such as {@code parallel.c}) beside the built {@code fixture}. */
    public static Path source(Fixture fixture, String file) {
        return FixtureBuilder.executable(fixture).getParent().resolve(file);
    }

    /** The 1-based number of the first line of {@code file} that contains {@code text}. */
    public static int lineOf(Fixture fixture, String file, String text) {
        Path source = source(fixture, file);
        List<String> lines;
        try {
            lines = Files.readAllLines(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError("no line of " + source + " contains " + text);
    }
}
