package dev.jompd.job.sources;

import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.live.LiveProcessAddressSpace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The MPIR process table of a running launcher ({@code mpirun}/{@code mpiexec} of Open MPI, srun, MPICH's
 * hydra): {@code MPIR_proctable_size} entries of {@code MPIR_PROCDESC { char *host_name; char
 * *executable_name; int pid; }}, entry i being rank i. Read with jompd's own live reader: the launcher is
 * stopped only while the table is read, then resumed; nothing is written.
 */
public final class MpirProctable {
    /** Bounds on what a damaged or hostile table could make us read. */
    private static final int MAX_RANKS = 4_000_000;
    private static final int MAX_STRING = 128 * 1024;
    /** sizeof(MPIR_PROCDESC) on LP64: two pointers and an int, padded to 8. */
    private static final int ENTRY_SIZE = 24;

    private MpirProctable() {}

    /** One rank as the launcher knows it. */
    public record Entry(int rank, String host, String executable, long pid) {}

    /** The launcher's table; an IllegalStateException saying why when it has none (yet). */
    public static List<Entry> read(long launcherPid) {
        try (LiveProcessAddressSpace launcher = LiveProcessAddressSpace.attach(launcherPid)) {
            Optional<TargetSymbol> table = launcher.lookupSymbol("MPIR_proctable");
            Optional<TargetSymbol> size = launcher.lookupSymbol("MPIR_proctable_size");
            if (table.isEmpty() || size.isEmpty()) {
                throw new IllegalStateException("process " + launcherPid + " (" + launcher.name() + ") has no MPIR "
                        + "process table (MPIR_proctable, MPIR_proctable_size): not an MPI launcher (mpirun, mpiexec, srun)");
            }
            // int MPIR_proctable_size
            int count = (int) launcher.readU32(size.get().address());
            // MPIR_PROCDESC *MPIR_proctable
            long entries = launcher.readPointer(table.get().address());
            if (count == 0 || entries == 0) {
                throw new IllegalStateException("launcher " + launcherPid + " has not filled its MPIR process table "
                        + "yet (the job is still starting): try again in a moment");
            }
            if (count < 0 || count > MAX_RANKS) {
                throw new IllegalStateException("launcher " + launcherPid + " says MPIR_proctable_size is " + count
                        + ": not a table jompd reads");
            }
            List<Entry> ranks = new ArrayList<>(count);
            byte[] entry = new byte[ENTRY_SIZE];
            for (int rank = 0; rank < count; rank++) {
                launcher.read(entries + (long) rank * ENTRY_SIZE, entry, 0, ENTRY_SIZE);
                ByteBuffer fields = ByteBuffer.wrap(entry).order(ByteOrder.LITTLE_ENDIAN);
                long host = fields.getLong(0);          // ->host_name
                long executable = fields.getLong(8);    // ->executable_name
                int pid = fields.getInt(16);            // ->pid
                ranks.add(new Entry(rank, readString(launcher, host), readString(launcher, executable), pid));
            }
            return ranks;
        }
    }

    private static String readString(LiveProcessAddressSpace space, long address) {
        if (address == 0) {
            return "";
        }
        return space.readCString(address, MAX_STRING);
    }
}
