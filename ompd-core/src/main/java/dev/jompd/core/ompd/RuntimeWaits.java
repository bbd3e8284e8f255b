package dev.jompd.core.ompd;

import dev.jompd.core.target.TargetException;

import java.util.Optional;

/**
 * Which construct of the program a thread waits in, as libomp records it (docs: shared waits.md): a barrier's
 * {@code ident_t} — the compiler's description of the construct, its flags saying which barrier (explicit, or the
 * implicit barrier of a {@code for}, {@code sections}, {@code single}, {@code workshare}) and its psource the
 * construct's line — kept in {@code th_ident} by {@code __kmpc_barrier} before it waits. Layouts come from {@link WaitLayout}; what is read is
 * believed only when its shape fits, else the answer is {@link Reading.Unknown} with why. A door never shows an
 * ident's construct without checking it against the thread's stack: {@code th_ident} keeps the last barrier's
 * loc until the next one (it is not cleared when the barrier ends).
 */
public final class RuntimeWaits {
    /** psource strings longer than this are no compiler's. */
    static final int MAX_PSOURCE = 4096;

    /** The construct an ident's flags name. */
    public enum IdentConstruct {
        EXPLICIT_BARRIER, IMPLICIT_BARRIER_FOR, IMPLICIT_BARRIER_SECTIONS, IMPLICIT_BARRIER_SINGLE,
        IMPLICIT_BARRIER_WORKSHARE,
        /** the flags name no barrier (libomp's own locs, gcc's GOMP_barrier, a reduction's or a lock's ident) */
        NO_BARRIER
    }

    /**
     * An ident_t: where it is, the construct its flags name, and its source as {@code file:line} (the file's
     * name only; empty where the compiler had no debug information: psource {@code ;unknown;unknown;0;0;;}).
     */
    public record Ident(long address, int flags, IdentConstruct construct, Optional<String> source, String evidence) {}

    /** What was read, or why nothing can be said. */
    public sealed interface Reading {
        record Known(Ident ident) implements Reading {}

        record Unknown(String why) implements Reading {}
    }

    private RuntimeWaits() {}

    /** The ident of the thread's last barrier ({@code __kmp_threads[gtid]->th.th_ident}). */
    public static Reading threadIdent(AddressSpaceHandle space, long gtid) {
        WaitLayout layout = WaitLayout.shipped();
        try {
            long[] threads = Ompd.threadTable(space);
            if (gtid < 0 || gtid >= threads.length || threads[(int) gtid] == 0) {
                return new Reading.Unknown("gtid " + gtid + " is no thread of __kmp_threads");
            }
            // libomp: __kmp_threads[gtid]->th.th_ident (kmp_info_t is a union whose th is at 0)
            long at = threads[(int) gtid] + space.layout().offset("kmp_base_info_t", "th_current_task")
                    - layout.threadIdentBefore();
            long ident = space.memory().readUnsigned(at, layout.threadIdentSize());
            if (ident == 0) {
                return new Reading.Unknown("the thread has passed no barrier (th_ident is null)");
            }
            return ident(space, ident, "th_ident of gtid " + gtid);
        } catch (OmpdException | TargetException e) {
            return new Reading.Unknown("th_ident of gtid " + gtid + " cannot be read: " + e.getMessage());
        }
    }

    /** The ident_t at {@code address}: its flags and psource, believed when psource has libomp's shape. */
    static Reading ident(AddressSpaceHandle space, long address, String what) {
        WaitLayout layout = WaitLayout.shipped();
        try {
            LockLayout.Member flagsMember = layout.member("ident_t", "flags");
            LockLayout.Member psourceMember = layout.member("ident_t", "psource");
            int flags = (int) space.memory().readUnsigned(address + flagsMember.offset(), flagsMember.size());
            long psource = space.memory().readUnsigned(address + psourceMember.offset(), psourceMember.size());
            if (psource == 0) {
                return new Reading.Unknown(what + ": the ident at 0x" + Long.toHexString(address) + " has no psource");
            }
            String text = space.memory().readCString(psource, MAX_PSOURCE);
            // ";file;function;line;column;;"
            String[] parts = text.split(";", -1);
            if (parts.length < 5 || !parts[0].isEmpty() || !parts[3].matches("\\d{1,9}")) {
                return new Reading.Unknown(what + ": the ident at 0x" + Long.toHexString(address)
                        + " has no psource of libomp's shape (\";file;function;line;column;;\")");
            }
            long line = Long.parseLong(parts[3]);
            Optional<String> source = parts[1].isEmpty() || parts[1].equals("unknown") || line == 0 ? Optional.empty()
                    : Optional.of(parts[1].substring(parts[1].lastIndexOf('/') + 1) + ":" + line);
            IdentConstruct construct = construct(flags, layout.flags());
            return new Reading.Known(new Ident(address, flags, construct, source, what + " = 0x"
                    + Long.toHexString(address) + " (flags 0x" + Integer.toHexString(flags) + ", psource \"" + text + "\")"));
        } catch (OmpdException | TargetException e) {
            return new Reading.Unknown(what + ": the ident at 0x" + Long.toHexString(address) + " cannot be read: "
                    + e.getMessage());
        }
    }

    /** Which barrier flags name (kmp.h: the implicit kinds under one mask, explicit its own bit). */
    static IdentConstruct construct(int flags, WaitLayout.Flags bits) {
        int implicit = flags & bits.implicitMask();
        if (implicit == bits.implicitWorkshare()) {
            return IdentConstruct.IMPLICIT_BARRIER_WORKSHARE;
        }
        if (implicit == bits.implicitSingle()) {
            return IdentConstruct.IMPLICIT_BARRIER_SINGLE;
        }
        if (implicit == bits.implicitSections()) {
            return IdentConstruct.IMPLICIT_BARRIER_SECTIONS;
        }
        if (implicit == bits.implicitFor()) {
            return IdentConstruct.IMPLICIT_BARRIER_FOR;
        }
        if ((flags & bits.explicit()) != 0) {
            return IdentConstruct.EXPLICIT_BARRIER;
        }
        return IdentConstruct.NO_BARRIER;
    }
}
