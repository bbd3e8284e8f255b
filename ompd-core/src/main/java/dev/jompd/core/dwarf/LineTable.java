package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every line program of a module's {@code .debug_line} (DWARF 2 to 5, including DWARF 5's directory
 * and file entry formats with {@code DW_FORM_line_strp}), as sorted address sequences of the rows gdb keeps
 * ({@link RowFilter}). A lookup picks the row gdb's {@code find_pc_sect_line} picks: the last row at or below
 * the address, preferring a statement row of the same file at the same address; line 0 means no line.
 */
public final class LineTable {
    private static final int MAX_UNITS = 1 << 20;
    private static final int MAX_ENTRIES = 1 << 20;
    /** Heap a row takes (address, line, column, file, flag), its arrays grown by doubling. */
    static final long BYTES_PER_ROW = 2 * (8 + 4 + 4 + 4 + 1);

    /** A file and line (and column, 0 when unknown) the line table gives for an address. */
    public record Row(String file, int line, int column) {}

    private final List<String> files = new ArrayList<>();
    private final Map<String, Integer> fileIds = new HashMap<>();
    private long[] addresses = new long[1024];
    private int[] lines = new int[1024];
    private int[] columns = new int[1024];
    private int[] fileIndexes = new int[1024];
    private boolean[] statements = new boolean[1024];
    private int rowCount;
    /** Sequences: [first row, row after the last) and the end address. */
    private long[] sequenceStarts = new long[64];
    private long[] sequenceEnds = new long[64];
    private int[] sequenceFirstRow = new int[64];
    private int[] sequenceRowEnd = new int[64];
    private int sequenceCount;
    private Integer[] sequenceOrder = new Integer[0];
    /** Each unit's file table (by the unit's offset in .debug_line), indexed as its file numbers are. */
    private final Map<Long, List<String>> unitFiles = new HashMap<>();

    private LineTable() {}

    /**
     * Parses every unit of {@code debugLine}. {@code lineStrings} ({@code .debug_line_str}) and
     * {@code strings} ({@code .debug_str}) resolve DWARF 5's string forms; {@code compilationDirectory}
     * names the units' directory 0 for DWARF 4 and earlier when known (by unit offset).
     */
    public static LineTable parse(ByteView debugLine, Optional<ByteView> lineStrings, Optional<ByteView> strings,
                                  Map<Long, String> compilationDirectories) {
        LineTable table = new LineTable();
        DwarfCursor cursor = new DwarfCursor(debugLine, 0);
        int units = 0;
        while (cursor.position() + 4 <= debugLine.size() && units++ < MAX_UNITS) {
            long unitOffset = cursor.position();
            long length = cursor.initialLength();
            long end = cursor.position() + length;
            if (end > debugLine.size() || end < cursor.position()) {
                throw new DwarfFormatException(debugLine.source(), "line program at 0x%x runs past the section".formatted(unitOffset));
            }
            table.parseUnit(unitOffset, cursor, end, cursor.lastWas64Bit, lineStrings, strings,
                    compilationDirectories.getOrDefault(unitOffset, ""));
            cursor.seek(end);
        }
        table.sortSequences();
        return table;
    }

    /** Only the line program at {@code offset} (one compilation unit's), with its unit's directory. */
    public static LineTable parseUnitAt(ByteView debugLine, long offset, Optional<ByteView> lineStrings,
                                        Optional<ByteView> strings, String compilationDirectory) {
        if (offset < 0 || offset >= debugLine.size()) {
            throw new DwarfFormatException(debugLine.source(), "line program offset 0x%x outside .debug_line".formatted(offset));
        }
        LineTable table = new LineTable();
        DwarfCursor cursor = new DwarfCursor(debugLine, offset);
        long length = cursor.initialLength();
        long end = cursor.position() + length;
        if (end > debugLine.size() || end < cursor.position()) {
            throw new DwarfFormatException(debugLine.source(), "line program at 0x%x runs past the section".formatted(offset));
        }
        table.parseUnit(offset, cursor, end, cursor.lastWas64Bit, lineStrings, strings, compilationDirectory);
        table.sortSequences();
        return table;
    }

    private void parseUnit(long unitOffset, DwarfCursor cursor, long end, boolean dwarf64, Optional<ByteView> lineStrings,
                           Optional<ByteView> strings, String compilationDirectory) {
        String source = cursor.bytes().source();
        int version = cursor.u16();
        if (version < 2 || version > 5) {
            throw new DwarfFormatException(source, "line program version " + version);
        }
        int addressSize = 8;
        if (version >= 5) {
            addressSize = cursor.u8();
            cursor.u8(); // segment selector size
        }
        long headerLength = cursor.offset(dwarf64);
        long programStart = cursor.position() + headerLength;
        if (programStart > end || programStart < cursor.position()) {
            throw new DwarfFormatException(source, "line program header overruns its unit");
        }
        int minimumInstructionLength = cursor.u8();
        if (version >= 4) {
            cursor.u8(); // maximum operations per instruction: VLIW only
        }
        boolean defaultIsStatement = cursor.u8() != 0;
        int lineBase = (byte) cursor.u8();
        int lineRange = cursor.u8();
        int opcodeBase = cursor.u8();
        if (lineRange == 0) {
            throw new DwarfFormatException(source, "line program with line_range 0");
        }
        int[] standardLengths = new int[Math.max(opcodeBase, 1)];
        for (int i = 1; i < opcodeBase; i++) {
            standardLengths[i] = cursor.u8();
        }
        List<String> directories = new ArrayList<>();
        List<Integer> fileIds = new ArrayList<>();
        if (version >= 5) {
            List<long[]> directoryFormat = entryFormat(cursor);
            long directoryCount = cursor.uleb();
            checkCount(directoryCount, source);
            for (long i = 0; i < directoryCount; i++) {
                directories.add(readEntry(cursor, directoryFormat, dwarf64, lineStrings, strings).path);
            }
            List<long[]> fileFormat = entryFormat(cursor);
            long fileCount = cursor.uleb();
            checkCount(fileCount, source);
            for (long i = 0; i < fileCount; i++) {
                Entry entry = readEntry(cursor, fileFormat, dwarf64, lineStrings, strings);
                fileIds.add(fileId(join(directories, entry.directory, entry.path, compilationDirectory)));
            }
        } else {
            directories.add(compilationDirectory);
            for (int i = 0; i < MAX_ENTRIES; i++) {
                String directory = cursor.cString();
                if (directory.isEmpty()) {
                    break;
                }
                directories.add(directory);
            }
            fileIds.add(-1); // DWARF 4 file numbers start at 1
            for (int i = 0; i < MAX_ENTRIES; i++) {
                String name = cursor.cString();
                if (name.isEmpty()) {
                    break;
                }
                int directory = cursor.ulebInt("directory index");
                cursor.uleb();
                cursor.uleb();
                fileIds.add(fileId(join(directories, directory, name, compilationDirectory)));
            }
        }
        unitFiles.put(unitOffset, fileIds.stream().map(id -> id < 0 ? "" : files.get(id)).toList());
        cursor.seek(programStart);
        runProgram(cursor, end, version, addressSize, minimumInstructionLength, defaultIsStatement, lineBase,
                lineRange, opcodeBase, standardLengths, directories, fileIds, compilationDirectory);
    }

    private void runProgram(DwarfCursor cursor, long end, int version, int addressSize, int minimumInstructionLength,
                            boolean defaultIsStatement, int lineBase, int lineRange, int opcodeBase,
                            int[] standardLengths, List<String> directories, List<Integer> fileIds,
                            String compilationDirectory) {
        long address = 0;
        int file = 1;
        int line = 1;
        int column = 0;
        boolean isStatement = defaultIsStatement;
        int sequenceStartRow = rowCount;
        long sequenceStartAddress = -1;
        RowFilter filter = new RowFilter();
        while (cursor.position() < end) {
            int opcode = cursor.u8();
            if (opcode >= opcodeBase) {
                int adjusted = opcode - opcodeBase;
                address += (long) (adjusted / lineRange) * minimumInstructionLength;
                int lineDelta = lineBase + adjusted % lineRange;
                line += lineDelta;
                filter.lineAdvanced(lineDelta);
                if (sequenceStartAddress == -1) {
                    sequenceStartAddress = address;
                }
                if (filter.keep(address, line, fileId(fileIds, file), isStatement)) {
                    addRow(address, line, column, fileIds, file, isStatement);
                }
                continue;
            }
            switch (opcode) {
                case 0 -> {
                    long length = cursor.uleb();
                    long next = cursor.position() + length;
                    if (length <= 0 || next > end) {
                        throw new DwarfFormatException(cursor.bytes().source(), "extended line opcode overruns its unit");
                    }
                    int extended = cursor.u8();
                    switch (extended) {
                        case 1 -> { // end_sequence
                            if (sequenceStartAddress == -1) {
                                sequenceStartAddress = address;
                            }
                            endSequence(sequenceStartRow, sequenceStartAddress, address);
                            sequenceStartRow = rowCount;
                            sequenceStartAddress = -1;
                            filter = new RowFilter();
                            address = 0;
                            file = 1;
                            line = 1;
                            column = 0;
                            isStatement = defaultIsStatement;
                        }
                        case 2 -> address = cursor.unsigned(Math.min((int) length - 1, 8));
                        case 3 -> { // define_file (DWARF 4 and earlier)
                            String name = cursor.cString();
                            int directory = cursor.ulebInt("directory index");
                            fileIds.add(fileId(join(directories, directory, name, compilationDirectory)));
                        }
                        case 4 -> filter.discriminator(cursor.uleb());
                        default -> { } // vendor extensions
                    }
                    cursor.seek(next);
                }
                case 1 -> {
                    if (sequenceStartAddress == -1) {
                        sequenceStartAddress = address;
                    }
                    if (filter.keep(address, line, fileId(fileIds, file), isStatement)) {
                        addRow(address, line, column, fileIds, file, isStatement);
                    }
                }
                case 2 -> address += cursor.uleb() * minimumInstructionLength;
                case 3 -> {
                    int lineDelta = (int) cursor.sleb();
                    line += lineDelta;
                    filter.lineAdvanced(lineDelta);
                }
                case 4 -> {
                    file = cursor.ulebInt("file index");
                    filter.fileSet();
                }
                case 5 -> column = cursor.ulebInt("column");
                case 6 -> isStatement = !isStatement;
                case 7, 10, 11 -> { }
                case 8 -> address += (long) ((255 - opcodeBase) / lineRange) * minimumInstructionLength;
                case 9 -> address += cursor.u16();
                default -> {
                    for (int i = 0; i < standardLengths[opcode]; i++) {
                        cursor.uleb();
                    }
                }
            }
        }
    }

    /** The file's id (its path's: two file numbers may name one file, one file of gdb's), -1 when none. */
    private static int fileId(List<Integer> fileIds, int file) {
        return file >= 0 && file < fileIds.size() ? fileIds.get(file) : -1;
    }

    /**
     * Which rows of one sequence gdb keeps in its line tables (lnp_state_machine::record_line and its
     * record_line_p, in gdb/dwarf2/read.c, later dwarf2/line-program.c; gdb 10 and later): gdb keeps one table
     * a source file and, on each switch of file, ends the table it leaves at that address (buildsym_compunit::record_line then drops that file's rows there).
     * A lookup in the one table of all files (the last row at or below an address) answers as gdb does when
     * <ul>
     * <li>a row of line 0 is dropped (the row before it goes on);</li>
     * <li>a row that is not a statement, switches files at the address of the row before it (any row, kept or
     *     not) and comes after a statement row at that address is dropped: gdb keeps the statement rather than
     *     end its file there. Without a statement row there gdb switches files: the last row stands;</li>
     * <li>a row of the file and line of the row kept before it is dropped once that line had a non-zero
     *     discriminator (gdb's PR 17276).</li>
     * </ul>
     */
    private static final class RowFilter {
        /** The file of the last row kept (-2: none yet in this sequence, gdb's NULL subfile; -1 is no file). */
        private int lastFile = -2;
        private int lastLine;
        /** The address of the last row, kept or not, and whether any row there was a statement. */
        private long lastAddress;
        private boolean statementAtAddress;
        private long discriminator;
        private boolean lineHasNonZeroDiscriminator;

        void discriminator(long value) {
            discriminator = value;
            lineHasNonZeroDiscriminator |= value != 0;
        }

        void lineAdvanced(int delta) {
            if (delta != 0) {
                lineHasNonZeroDiscriminator = discriminator != 0;
            }
        }

        void fileSet() {
            lineHasNonZeroDiscriminator = discriminator != 0;
        }

        boolean keep(long address, int line, int file, boolean isStatement) {
            boolean fileChanged = file != lastFile;
            boolean ignore = line == 0 || file < 0 // gdb records no row of a file the header lacks
                    || (fileChanged && address == lastAddress && !isStatement && statementAtAddress);
            boolean keep = !ignore && (fileChanged || line != lastLine || !lineHasNonZeroDiscriminator);
            if (keep) {
                lastFile = file;
                lastLine = line;
            }
            if (address != lastAddress) {
                statementAtAddress = false;
                lastAddress = address;
            }
            statementAtAddress |= isStatement;
            discriminator = 0;
            return keep;
        }
    }

    private void addRow(long address, int line, int column, List<Integer> fileIds, int file, boolean isStatement) {
        if (rowCount == addresses.length) {
            int size = rowCount * 2;
            addresses = Arrays.copyOf(addresses, size);
            lines = Arrays.copyOf(lines, size);
            columns = Arrays.copyOf(columns, size);
            fileIndexes = Arrays.copyOf(fileIndexes, size);
            statements = Arrays.copyOf(statements, size);
        }
        addresses[rowCount] = address;
        lines[rowCount] = line;
        columns[rowCount] = column;
        fileIndexes[rowCount] = file >= 0 && file < fileIds.size() ? fileIds.get(file) : -1;
        statements[rowCount] = isStatement;
        rowCount++;
    }

    private void endSequence(int firstRow, long start, long endAddress) {
        if (rowCount == firstRow || endAddress == start) {
            rowCount = firstRow;
            return;
        }
        if (sequenceCount == sequenceStarts.length) {
            int size = sequenceCount * 2;
            sequenceStarts = Arrays.copyOf(sequenceStarts, size);
            sequenceEnds = Arrays.copyOf(sequenceEnds, size);
            sequenceFirstRow = Arrays.copyOf(sequenceFirstRow, size);
            sequenceRowEnd = Arrays.copyOf(sequenceRowEnd, size);
        }
        sequenceStarts[sequenceCount] = start;
        sequenceEnds[sequenceCount] = endAddress;
        sequenceFirstRow[sequenceCount] = firstRow;
        sequenceRowEnd[sequenceCount] = rowCount;
        sequenceCount++;
    }

    private void sortSequences() {
        sequenceOrder = new Integer[sequenceCount];
        for (int i = 0; i < sequenceCount; i++) {
            sequenceOrder[i] = i;
        }
        Arrays.sort(sequenceOrder, (a, b) -> Long.compareUnsigned(sequenceStarts[a], sequenceStarts[b]));
    }

    /** The row for {@code address} (a file address), empty when no sequence covers it or its line is 0. */
    public Optional<Row> lookup(long address) {
        int low = 0;
        int high = sequenceCount - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(sequenceStarts[sequenceOrder[mid]], address) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        // Sequences of functions the linker dropped start at 0 and may overlap: look back a few.
        for (int i = found; i >= 0 && i > found - 8; i--) {
            int sequence = sequenceOrder[i];
            if (Long.compareUnsigned(address, sequenceEnds[sequence]) < 0
                    && Long.compareUnsigned(address, sequenceStarts[sequence]) >= 0) {
                return rowIn(sequence, address);
            }
        }
        return Optional.empty();
    }

    private Optional<Row> rowIn(int sequence, long address) {
        int low = sequenceFirstRow[sequence];
        int high = sequenceRowEnd[sequence] - 1;
        int first = low;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(addresses[mid], address) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (found < 0) {
            return Optional.empty();
        }
        if (!statements[found]) {
            int candidate = found;
            // gdb prefers a statement row at the same address, of the same file (on a switch of files gdb's
            // table of the file left ends there, without its rows at that address)
            while (candidate > first && addresses[candidate - 1] == addresses[candidate] && lines[candidate - 1] != 0
                    && fileIndexes[candidate - 1] == fileIndexes[candidate] && !statements[candidate]) {
                candidate--;
            }
            if (statements[candidate]) {
                found = candidate;
            }
        }
        if (lines[found] == 0 || fileIndexes[found] < 0) {
            return Optional.empty();
        }
        return Optional.of(new Row(files.get(fileIndexes[found]), lines[found], columns[found]));
    }

    /**
     * File {@code index} of the line program at {@code unitOffset} (what {@code DW_AT_call_file} and
     * {@code DW_AT_decl_file} refer to), when it exists.
     */
    public Optional<String> file(long unitOffset, long index) {
        List<String> table = unitFiles.get(unitOffset);
        if (table == null || index < 0 || index >= table.size() || table.get((int) index).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(table.get((int) index));
    }

    /** How many rows the table holds (all units). */
    public int size() {
        return rowCount;
    }

    private int fileId(String path) {
        return fileIds.computeIfAbsent(path, p -> {
            files.add(p);
            return files.size() - 1;
        });
    }

    private static String join(List<String> directories, int directory, String name, String compilationDirectory) {
        if (name.startsWith("/")) {
            return name;
        }
        String base = directory >= 0 && directory < directories.size() ? directories.get(directory) : "";
        if (!base.startsWith("/") && !compilationDirectory.isEmpty() && !base.equals(compilationDirectory)) {
            base = base.isEmpty() ? compilationDirectory : compilationDirectory + "/" + base;
        }
        return base.isEmpty() ? name : base + "/" + name;
    }

    private static void checkCount(long count, String source) {
        if (count < 0 || count > MAX_ENTRIES) {
            throw new DwarfFormatException(source, "line program header lists %d entries".formatted(count));
        }
    }

    private record Entry(String path, int directory) {}

    private static List<long[]> entryFormat(DwarfCursor cursor) {
        int count = cursor.u8();
        List<long[]> format = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            format.add(new long[] {cursor.uleb(), cursor.uleb()});
        }
        return format;
    }

    private static Entry readEntry(DwarfCursor cursor, List<long[]> format, boolean dwarf64,
                                   Optional<ByteView> lineStrings, Optional<ByteView> strings) {
        String path = "";
        int directory = 0;
        for (long[] field : format) {
            long contentType = field[0];
            int form = (int) field[1];
            String text = null;
            long number = 0;
            switch (form) {
                case 0x08 -> text = cursor.cString();
                case 0x1f -> text = stringAt(lineStrings, cursor.offset(dwarf64), cursor.bytes().source());
                case 0x0e -> text = stringAt(strings, cursor.offset(dwarf64), cursor.bytes().source());
                case 0x0f -> number = cursor.uleb();
                case 0x0b -> number = cursor.u8();
                case 0x05 -> number = cursor.u16();
                case 0x06 -> number = cursor.u32();
                case 0x07 -> number = cursor.u64();
                case 0x1e -> cursor.skip(16);
                case 0x09 -> cursor.skip(cursor.uleb());
                default -> throw new DwarfFormatException(cursor.bytes().source(),
                        "unsupported form 0x%x in a line program header".formatted(form));
            }
            if (contentType == 1 && text != null) {
                path = text;
            } else if (contentType == 2) {
                directory = (int) Math.min(number, Integer.MAX_VALUE);
            }
        }
        return new Entry(path, directory);
    }

    static String stringAt(Optional<ByteView> strings, long offset, String source) {
        if (strings.isEmpty() || offset < 0 || offset >= strings.get().size()) {
            throw new DwarfFormatException(source, "string offset 0x%x outside its string section".formatted(offset));
        }
        return strings.get().cString(offset, 4096);
    }
}
