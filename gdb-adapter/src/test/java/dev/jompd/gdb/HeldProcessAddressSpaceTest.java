package dev.jompd.gdb;

import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The backend of a local process gdb holds, on a stopped {@code sleep} (as gdb would hold it): memory,
 * modules and symbols without ptrace, checked against the files on disk.
 */
class HeldProcessAddressSpaceTest {
    private final GdbThreads noGdb = new GdbThreads(new GdbChannel(InputStream.nullInputStream(), new ByteArrayOutputStream()));
    private Process sleeper;

    @BeforeEach
    void stoppedProcess() throws Exception {
        sleeper = new ProcessBuilder("sleep", "120").start();
        Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(sleeper.pid())).start();
        assertThat(stop.waitFor(10, TimeUnit.SECONDS) && stop.exitValue() == 0).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(Path.of("/proc", Long.toString(sleeper.pid()), "stat")).contains(") T ")
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    @AfterEach
    void end() {
        sleeper.destroyForcibly();
    }

    @Test
    void readsTheProcessAndFindsSymbolsOfItsLibraries() {
        try (HeldProcessAddressSpace held = HeldProcessAddressSpace.open(sleeper.pid(), noGdb)) {
            assertThat(held.modules().getFirst().path().getFileName().toString()).isEqualTo("sleep");
            Optional<TargetSymbol> malloc = held.lookupSymbol("malloc", "libc");
            assertThat(malloc).isPresent();
            // malloc's first bytes are libc's code: what the process holds there is not zeros
            byte[] bytes = new byte[16];
            held.read(malloc.get().address(), bytes, 0, bytes.length);
            assertThat(bytes).isNotEqualTo(new byte[16]);
        }
    }

    @Test
    void anUnmappedAddressIsAReadErrorNamingIt() {
        try (HeldProcessAddressSpace held = HeldProcessAddressSpace.open(sleeper.pid(), noGdb)) {
            assertThatThrownBy(() -> held.read(0x10, new byte[8], 0, 8)).isInstanceOf(MemoryReadException.class)
                    .hasMessageContaining("0x10");
        }
    }

    @Test
    void aRunningProcessIsRefused() throws Exception {
        new ProcessBuilder("kill", "-CONT", Long.toString(sleeper.pid())).start().waitFor(10, TimeUnit.SECONDS);
        Thread.sleep(50);
        assertThatThrownBy(() -> HeldProcessAddressSpace.open(sleeper.pid(), noGdb)).isInstanceOf(TargetException.class)
                .hasMessageContaining("running");
    }
}
