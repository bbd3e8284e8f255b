package dev.jompd.gdb;

import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetSymbol;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The /proc/PID/mem backend on this very JVM (it may read its own memory), and maps parsing. */
class ProcPidAddressSpaceTest {

    @Test
    void mapsLinesYieldFileMappingsOnly() {
        List<ProcPidAddressSpace.Mapping> mappings = ProcPidAddressSpace.parseMaps(List.of(
                "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 1234                       /usr/bin/cat",
                "55d0c0a02000-55d0c0a07000 r-xp 00002000 fe:00 1234                       /usr/bin/cat",
                "7ffd1c9e1000-7ffd1ca02000 rw-p 00000000 00:00 0                          [stack]",
                "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ",
                "7f0000002000-7f0000003000 r--p 00000000 fe:00 99  /tmp/a file with spaces.so",
                "garbage"));
        assertThat(mappings).containsExactly(
                new ProcPidAddressSpace.Mapping(0x55d0c0a00000L, 0x55d0c0a02000L, 0, "/usr/bin/cat"),
                new ProcPidAddressSpace.Mapping(0x55d0c0a02000L, 0x55d0c0a07000L, 0x2000, "/usr/bin/cat"),
                new ProcPidAddressSpace.Mapping(0x7f0000002000L, 0x7f0000003000L, 0, "/tmp/a file with spaces.so"));
    }

    @Test
    void readsItsOwnProcessAndFindsSymbolsOfItsLibraries() throws Exception {
        GdbThreads noGdb = new GdbThreads(new GdbChannel(InputStream.nullInputStream(), new ByteArrayOutputStream()));
        try (ProcPidAddressSpace self = ProcPidAddressSpace.open(ProcessHandle.current().pid(), noGdb)) {
            Optional<TargetSymbol> createVm = self.lookupSymbol("JNI_CreateJavaVM", "libjvm");
            assertThat(createVm).isPresent();
            // The symbol's first bytes are code of libjvm.so: what /proc/self/mem says matches the file.
            byte[] bytes = new byte[16];
            self.read(createVm.get().address(), bytes, 0, bytes.length);
            assertThat(bytes).isNotEqualTo(new byte[16]);
            assertThat(self.modules().getFirst().path().getFileName().toString()).isEqualTo("java");
        }
    }

    @Test
    void anUnmappedAddressIsAReadErrorNamingIt() {
        GdbThreads noGdb = new GdbThreads(new GdbChannel(InputStream.nullInputStream(), new ByteArrayOutputStream()));
        try (ProcPidAddressSpace self = ProcPidAddressSpace.open(ProcessHandle.current().pid(), noGdb)) {
            assertThatThrownBy(() -> self.read(0x10, new byte[8], 0, 8)).isInstanceOf(MemoryReadException.class)
                    .hasMessageContaining("0x10");
        }
    }
}
