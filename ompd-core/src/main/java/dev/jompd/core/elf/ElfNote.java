package dev.jompd.core.elf;

import java.util.ArrayList;
import java.util.List;

/**
 * One ELF note: an owner name, a type and a descriptor. The descriptor is a view into the file, valid
 * while the file is open.
 *
 * @param name       the owner ("CORE", "LINUX", "GNU", ...), without its terminating NUL
 * @param type       {@code n_type}, the raw 32 bits (meaning depends on the owner)
 * @param descriptor the note's payload
 */
public record ElfNote(String name, int type, ByteView descriptor) {

    public static final int NT_PRSTATUS = 1;
    public static final int NT_PRPSINFO = 3;
    public static final int NT_AUXV = 6;
    /** Mapped files of a core ("CORE" note); jelf and older headers lack the constant. */
    public static final int NT_FILE = 0x46494c45;
    public static final int NT_GNU_BUILD_ID = 3;

    /** Names longer than this are not note owners but damage. */
    private static final int MAX_NAME_LENGTH = 4096;

    /** Whether this is the GNU build-id note. */
    public boolean isGnuBuildId() {
        return type == NT_GNU_BUILD_ID && name.equals("GNU");
    }

    /**
     * Parses the notes in {@code bytes}, a PT_NOTE segment or SHT_NOTE section.
     *
     * @param alignment 4 or 8: how names and descriptors are padded (8 only for segments aligned to 8,
     *                  such as .note.gnu.property; Linux cores use 4 whatever the segment says)
     * @throws ElfFormatException when a note does not fit in {@code bytes}
     */
    public static List<ElfNote> parseAll(ByteView bytes, int alignment) {
        List<ElfNote> notes = new ArrayList<>();
        long position = 0;
        // Each note takes at least 12 bytes, so this loop ends after at most size/12 notes.
        while (bytes.size() - position >= 12) {
            long nameSize = bytes.u32(position);
            long descriptorSize = bytes.u32(position + 4);
            int type = bytes.s32(position + 8);
            long nameOffset = position + 12;
            if (nameSize > MAX_NAME_LENGTH) {
                throw new ElfFormatException(bytes.source(), "note %d at offset 0x%x has a %d-byte name"
                        .formatted(notes.size(), position, nameSize));
            }
            String name = bytes.slice(nameOffset, nameSize, "name of note " + notes.size())
                    .cString(0, (int) nameSize);
            long descriptorOffset = alignUp(nameOffset + nameSize, alignment);
            ByteView descriptor = bytes.slice(descriptorOffset, descriptorSize, "descriptor of note " + notes.size());
            notes.add(new ElfNote(name, type, descriptor));
            position = alignUp(descriptorOffset + descriptorSize, alignment);
        }
        return notes;
    }

    private static long alignUp(long value, int alignment) {
        // Values are below 2^33 here (offset within a view plus a u32), so this cannot overflow.
        return (value + alignment - 1) & -alignment;
    }
}
