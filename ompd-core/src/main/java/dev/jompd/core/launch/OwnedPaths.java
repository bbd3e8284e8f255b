package dev.jompd.core.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

/**
 * Whether nobody but this process's user (and root) can change a file or directory: the test before jompd loads,
 * runs or keeps anything there. jompd runs as root on other users' jobs and cores, and as one user among many on
 * a login node: a library another user can write, loaded as root, runs that user's code as root; a cache another
 * user can write feeds this one's JVM class archives and libraries.
 *
 * <p>The path is resolved first (its links followed) and what is checked is the resolved path, which the caller
 * then uses: once every directory on it is root's or ours and writable by nobody else, nobody else can swap a
 * part of it. A directory writable by others counts when it is sticky ({@code /tmp}): there only an entry's
 * owner may rename or remove it. OpenSSH's StrictModes checks the same way.
 */
public final class OwnedPaths {
    private static final int GROUP_OR_OTHER_WRITE = 0022;
    private static final int STICKY = 01000;

    private OwnedPaths() {}

    /** This process's effective uid, from {@code /proc/self/status} (the JDK has no call for it); -1 when unreadable. */
    public static int effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: trust nothing
        }
        return -1;
    }

    /** The uid that owns process {@code pid} (its {@code /proc} directory: the effective uid), or empty when it is gone. */
    public static Optional<Integer> processOwner(long pid) {
        try {
            return Optional.of((Integer) Files.getAttribute(Path.of("/proc/" + pid), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The directory resolved, when it is this user's own and nobody else can change it; else why not. */
    public static Verdict directory(Path directory) {
        return check(directory, true);
    }

    /**
     * {@link #directory}, made first (0700, with what is missing above it) when it is not there and the directories
     * that hold it pass: never made where another user could take it over ({@code sudo -E} keeps another user's HOME).
     */
    public static Verdict privateDirectory(Path directory) {
        Path absolute = directory.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(absolute)) {
            Path existing = absolute.getParent();
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            if (existing != null) {
                Verdict above = ancestry(existing);
                if (!above.trusted()) {
                    return above;
                }
            }
            try {
                Files.createDirectories(absolute, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (IOException | RuntimeException e) {
                return Verdict.refused(absolute + " cannot be made (" + e.getMessage() + ")");
            }
        }
        return directory(absolute);
    }

    /** The file resolved, when only root or this user can change it (a library to load, a program to run); else why not. */
    public static Verdict file(Path file) {
        return check(file, false);
    }

    /**
     * What the check found: {@code path} the resolved path to use when trusted, else {@code why} it is not (a
     * sentence naming the part and its owner or mode).
     */
    public record Verdict(Optional<Path> path, String why) {
        static Verdict trusted(Path path) {
            return new Verdict(Optional.of(path), "");
        }

        static Verdict refused(String why) {
            return new Verdict(Optional.empty(), why);
        }

        public boolean trusted() {
            return path.isPresent();
        }
    }

    private static Verdict check(Path given, boolean directory) {
        int self = effectiveUid();
        if (self < 0) {
            return Verdict.refused("this process's uid cannot be read from /proc/self/status");
        }
        Path real;
        try {
            real = given.toRealPath();
        } catch (IOException e) {
            return Verdict.refused(given + " cannot be resolved (" + e.getMessage() + ")");
        }
        try {
            Map<String, Object> leaf = Files.readAttributes(real, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) leaf.get("uid");
            int mode = (Integer) leaf.get("mode");
            if (directory ? !Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS) : !Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
                return Verdict.refused(real + " is not a " + (directory ? "directory" : "regular file"));
            }
            if (directory ? owner != self : owner != self && owner != 0) {
                String allowed = self == 0 ? "root, that jompd runs as"
                        : (directory ? "" : "root or ") + "uid " + self + ", that jompd runs as";
                return Verdict.refused(real + " belongs to " + user(real, owner) + ", not to " + allowed);
            }
            if ((mode & GROUP_OR_OTHER_WRITE) != 0) {
                return Verdict.refused(real + " can be written by its group or others (mode " + octal(mode) + ")");
            }
        } catch (IOException | RuntimeException e) {
            return Verdict.refused(real + " cannot be checked (" + e.getMessage() + ")");
        }
        Verdict above = real.getParent() == null ? Verdict.trusted(real) : ancestry(real.getParent());
        return above.trusted() ? Verdict.trusted(real) : above;
    }

    /** Whether {@code directory} (resolved) and every directory above it is root's or this user's and not writable by others unless sticky. */
    private static Verdict ancestry(Path directory) {
        int self = effectiveUid();
        Path real;
        try {
            real = directory.toRealPath();
        } catch (IOException e) {
            return Verdict.refused(directory + " cannot be resolved (" + e.getMessage() + ")");
        }
        try {
            for (Path parent = real; parent != null; parent = parent.getParent()) {
                Map<String, Object> attributes = Files.readAttributes(parent, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
                int parentOwner = (Integer) attributes.get("uid");
                int parentMode = (Integer) attributes.get("mode");
                if (parentOwner != self && parentOwner != 0) {
                    return Verdict.refused("its directory " + parent + " belongs to " + user(parent, parentOwner)
                            + ", who can replace what it holds");
                }
                if ((parentMode & GROUP_OR_OTHER_WRITE) != 0 && (parentMode & STICKY) == 0) {
                    return Verdict.refused("its directory " + parent + " can be written by its group or others (mode "
                            + octal(parentMode) + ")");
                }
            }
        } catch (IOException | RuntimeException e) {
            return Verdict.refused(real + " cannot be checked (" + e.getMessage() + ")");
        }
        return Verdict.trusted(real);
    }

    private static String user(Path path, int uid) {
        try {
            String name = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
            return name.equals(Integer.toString(uid)) ? "uid " + uid : "user " + name + " (uid " + uid + ")";
        } catch (IOException | RuntimeException e) {
            return "uid " + uid;
        }
    }

    private static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }
}
