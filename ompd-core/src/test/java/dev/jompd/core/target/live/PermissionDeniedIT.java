package dev.jompd.core.target.live;

import dev.jompd.testkit.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.stream.Stream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The kernel's refusal, explained: a JVM running as another user without CAP_SYS_PTRACE tries to
 * attach to a process of ours and must say who owns it and what it lacks.
 */
class PermissionDeniedIT {
    private static final int NOBODY = 65534;

    @TempDir
    static Path directory;

    @Test
    void anotherUsersProcessIsRefusedNamingTheUidsAndTheMissingCapability() throws Exception {
        boolean root = ProcFs.uid((int) ProcessHandle.current().pid()).orElse(-1) == 0;
        boolean setpriv = Commands.available("setpriv");
        if (!root || !setpriv) {
            System.out.println("[jompd] PermissionDeniedIT skipped: needs root and setpriv to run a JVM as another user");
        }
        assumeThat(root && setpriv).as("root with setpriv").isTrue();
        String java = ProcessHandle.current().info().command().orElseThrow();
        // The other user must be able to read the classes: the build tree may sit in a directory only we
        // can enter (a clone in a 0700 mktemp directory, /root), so the probe runs from a readable copy.
        Path readable = Files.createTempDirectory(Path.of("/tmp"), "jompd-probe-");
        try {
            probeAsAnotherUser(java, readable);
        } finally {
            dev.jompd.testkit.Fixtures.deleteRecursively(readable); // the copy of the classes, not left in /tmp
        }
    }

    private static void probeAsAnotherUser(String java, Path readable) throws Exception {
        String classPath = readableCopy(location(LiveProcessAddressSpace.class), readable.resolve("main"))
                + File.pathSeparator + readableCopy(location(AttachProbe.class), readable.resolve("test"));
        try (DetachedProcess sleeper = DetachedProcess.start(List.of("/bin/sh", "-c", "echo JOMPD_SLEEPER; exec sleep 60"),
                Map.of(), directory, directory.resolve("sleeper-stderr.txt"))) {
            sleeper.awaitLine("JOMPD_SLEEPER", Duration.ofSeconds(30));
            Commands.Result probe = Commands.run(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
                            "--inh-caps=-all", "--bounding-set=-all", java, "--enable-native-access=ALL-UNNAMED",
                            "-cp", classPath, AttachProbe.class.getName(), Long.toString(sleeper.pid())),
                    Map.of(), Path.of("/tmp"), Duration.ofMinutes(1));
            System.out.println("[jompd] as uid " + NOBODY + ": " + probe.output().strip());
            assertThat(probe.output()).contains("REFUSED PERMISSION_DENIED")
                    .contains("permission denied attaching to process " + sleeper.pid())
                    .contains("the process belongs to uid 0, this JVM runs as uid %d without CAP_SYS_PTRACE".formatted(NOBODY));
            assertThat(sleeper.isAlive()).isTrue();
            assertThat(ProcFs.threadState((int) sleeper.pid(), (int) sleeper.pid())).contains('S');
        }
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Copies a class directory (or jar) to {@code target}, readable by everyone; answers the copy's path. */
    private static String readableCopy(Path source, Path target) throws IOException {
        Set<PosixFilePermission> directoryMode = PosixFilePermissions.fromString("rwxr-xr-x");
        Set<PosixFilePermission> fileMode = PosixFilePermissions.fromString("rw-r--r--");
        Files.setPosixFilePermissions(target.getParent(), directoryMode);
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.toList()) {
                Path copy = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                    Files.setPosixFilePermissions(copy, directoryMode);
                } else {
                    Files.copy(file, copy);
                    Files.setPosixFilePermissions(copy, fileMode);
                }
            }
        }
        return target.toString();
    }
}
