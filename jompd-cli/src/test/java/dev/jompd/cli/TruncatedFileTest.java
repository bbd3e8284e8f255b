package dev.jompd.cli;

import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.MappedFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mapped file cut short while jompd reads it (a core being rewritten, a library replaced in place): the
 * pages past its new end fault (SIGBUS), which the JVM reports as an InternalError. A read through ByteView
 * says the file changed (ElfFormatException, which every reader handles); where compiled code raises the error
 * later, outside the read, the command's last resort says so as bad input (exit 3), not as jompd's bug. Each
 * case runs in a JVM of its own, so that the code is interpreted and the fault arrives where it happens.
 */
class TruncatedFileTest {
    @TempDir
    Path directory;

    /** In a fresh JVM: maps {@code args[1]}, cuts it to one page, then reads past it as {@code args[0]} says. */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[1]);
        PrintWriter out = new PrintWriter(System.out, true);
        if (args[0].equals("byteview")) {
            try (MappedFile mapped = MappedFile.open(file)) {
                truncate(file);
                try {
                    out.println("read " + mapped.bytes().u64(600_000));
                } catch (ElfFormatException e) {
                    out.println(e.getMessage());
                }
            }
        } else {
            try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment segment = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                truncate(file);
                int exit = Jompd.guarded(() -> (int) segment.get(ValueLayout.JAVA_LONG_UNALIGNED, 600_000), out);
                out.println("exit " + exit);
            }
        }
    }

    private static void truncate(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(4096);
        }
    }

    private List<String> run(String mode) throws IOException, InterruptedException {
        Path file = Files.write(directory.resolve("shrinking.core"), new byte[1 << 20]);
        Process java = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), TruncatedFileTest.class.getName(), mode, file.toString())
                .redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor()).as(output).isZero();
        return output.lines().toList();
    }

    @Test
    void aReadPastTheNewEndSaysTheFileChanged() throws Exception {
        Path file = directory.resolve("shrinking.core");
        assertThat(run("byteview")).containsExactly(file + ": the file changed while being read: it is shorter than when"
                + " it was opened (truncated?)");
    }

    @Test
    void aFaultOutsideAnyReadIsBadInputNotAnInternalError() throws Exception {
        assertThat(run("command")).containsExactly("jompd: a file jompd was reading (the core or a module) changed while"
                + " being read: it is shorter than when it was opened (truncated?)", "exit 3");
    }
}
