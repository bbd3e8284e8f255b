package dev.jompd.core.target.live;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Parsing what /proc and waitpid say, on the odd inputs real systems produce. */
class ProcFsTest {

    @Test
    void stateIsReadAfterTheLastParenthesisSoCommandNamesCannotConfuseIt() {
        assertThat(ProcFs.stateOfStat("4711 (a) b) S 1 4711 4711 0 -1")).contains('S');
        assertThat(ProcFs.stateOfStat("4711 (omp worker) t 1 2 3")).contains('t');
        assertThat(ProcFs.stateOfStat("4711 (x)")).isEmpty();
        assertThat(ProcFs.stateOfStat("garbage")).isEmpty();
    }

    @Test
    void mappingsKeepPathsWithSpacesAndTheDeletedMarker() {
        ProcFs.Mapping library = ProcFs.parseMapping(
                "7f12a0000000-7f12a0021000 r-xp 00001000 fd:01 1234567                    /opt/my libs/libomp.so (deleted)").orElseThrow();
        assertThat(library.start()).isEqualTo(0x7f12a0000000L);
        assertThat(library.end()).isEqualTo(0x7f12a0021000L);
        assertThat(library.offset()).isEqualTo(0x1000);
        assertThat(library.permissions()).isEqualTo("r-xp");
        assertThat(library.path()).isEqualTo("/opt/my libs/libomp.so (deleted)");
        assertThat(library.fileBacked()).isTrue();
        assertThat(library.contains(0x7f12a0020fffL)).isTrue();
        assertThat(library.contains(0x7f12a0021000L)).isFalse();
    }

    @Test
    void anonymousAndSpecialMappingsAreNotFiles() {
        assertThat(ProcFs.parseMapping("55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]")
                .orElseThrow().fileBacked()).isFalse();
        assertThat(ProcFs.parseMapping("7ffd1e9f0000-7ffd1e9f2000 r-xp 00000000 00:00 0").orElseThrow().path()).isEmpty();
        assertThat(ProcFs.parseMapping("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]")
                .orElseThrow().end()).isEqualTo(0xffffffffff601000L);
        assertThat(ProcFs.parseMapping("not a mapping")).isEmpty();
        assertThat(ProcFs.parseMapping("zz-10 r--p 0 00:00 0")).isEmpty();
    }

    @Test
    void aWholeTableParsesLineByLineAsSplittingEachLineAtBlanksDoes() throws Exception {
        String table = """
                55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]
                7f12a0000000-7f12a0021000 r-xp 00001000 fd:01 1234567                    /opt/my libs/libomp.so (deleted)
                not a mapping

                7ffd1e9f0000-7ffd1e9f2000 r-xp 00000000 00:00 0
                7f12a0021000-7f12a0022000 r--p 00021000 fd:01 1234567   \t /lib/x.so\t\s
                """;
        assertThat(ProcFs.parseMappings(table)).extracting(ProcFs.Mapping::path)
                .containsExactly("[heap]", "/opt/my libs/libomp.so (deleted)", "", "/lib/x.so");
        // this JVM's own table, against the plain reading: each line split at runs of blanks into at most six fields
        String own = Files.readString(Path.of("/proc/self/maps"));
        List<ProcFs.Mapping> expected = own.lines().map(line -> line.split("\\s+", 6)).map(fields -> new ProcFs.Mapping(
                Long.parseUnsignedLong(fields[0].substring(0, fields[0].indexOf('-')), 16),
                Long.parseUnsignedLong(fields[0].substring(fields[0].indexOf('-') + 1), 16), fields[1],
                Long.parseUnsignedLong(fields[2], 16), Long.parseLong(fields[4]),
                fields.length == 6 ? fields[5].strip() : "")).toList();
        assertThat(expected).hasSizeGreaterThan(10);
        assertThat(ProcFs.parseMappings(own)).isEqualTo(expected);
    }

    @Test
    void waitStatusesDecodeAsTheWaitMacrosDo() {
        int interruptStop = (LinuxNative.PTRACE_EVENT_STOP << 16) | (5 << 8) | 0x7f; // SIGTRAP | PTRACE_EVENT_STOP
        assertThat(LinuxNative.stopped(interruptStop)).isTrue();
        assertThat(LinuxNative.ptraceEvent(interruptStop)).isEqualTo(LinuxNative.PTRACE_EVENT_STOP);
        assertThat(LinuxNative.stopSignal(interruptStop)).isEqualTo(5);
        int signalStop = (10 << 8) | 0x7f; // SIGUSR1 about to be delivered
        assertThat(LinuxNative.stopped(signalStop)).isTrue();
        assertThat(LinuxNative.ptraceEvent(signalStop)).isZero();
        assertThat(LinuxNative.stopSignal(signalStop)).isEqualTo(10);
        int exited = 3 << 8;
        assertThat(LinuxNative.stopped(exited)).isFalse();
        assertThat(LinuxNative.exited(exited)).isTrue();
        int killed = 9;
        assertThat(LinuxNative.killed(killed)).isTrue();
        assertThat(LinuxNative.exited(killed)).isFalse();
    }

    @Test
    void ourOwnProcessIsReadable() {
        int self = (int) ProcessHandle.current().pid();
        assertThat(ProcFs.threadIds(self)).startsWith(self).hasSizeGreaterThan(1);
        assertThat(ProcFs.threadState(self, self)).isPresent();
        assertThat(ProcFs.threadGroupOf(ProcFs.threadIds(self).getLast())).isEqualTo(self);
        assertThat(ProcFs.statusNumber(self, "PPid")).isPresent();
        assertThat(ProcFs.command(self)).isPresent();
        // A sysctl file answers only a read from offset 0: the whole number must come back.
        assertThat(ProcFs.read(Path.of("/proc/sys/kernel/pid_max")).orElseThrow().strip()).hasSizeGreaterThan(1);
        assertThat(ProcFs.threadIds(Integer.MAX_VALUE)).isEmpty();
    }
}
