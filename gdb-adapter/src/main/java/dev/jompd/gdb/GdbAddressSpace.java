package dev.jompd.gdb;

import com.google.gson.JsonObject;
import dev.jompd.core.memory.BlockCache;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A process whose memory only gdb can reach (behind gdbserver, or a local process whose
 * /proc/PID/mem the engine may not read): memory comes through gdb ({@code Inferior.read_memory}) in
 * aligned blocks of {@value #BLOCK_SIZE} bytes, cached for the stop; the modules come from the dynamic
 * linker's link map ({@code _r_debug.r_map}, found by asking gdb for the symbol) and their symbols
 * from the files on this machine (for gdbserver on loopback they are the same files).
 */
final class GdbAddressSpace implements AddressSpace {
    /** What one question to gdb reads: large enough that a struct walk needs few round trips. */
    static final int BLOCK_SIZE = 16 * 1024;
    private static final int MAX_CACHED_BLOCKS = 4096;
    private static final int MAX_PATH = 4096;

    private final String name;
    private final String described;
    private final GdbThreads threads;
    private final GdbChannel gdb;
    private final Optional<Path> executable;
    private final BlockCache blocks = new BlockCache(BLOCK_SIZE, MAX_CACHED_BLOCKS, this::readThroughGdb);
    private ModuleSymbols symbols;

    GdbAddressSpace(String name, String described, GdbChannel gdb, GdbThreads threads, Optional<Path> executable) {
        this.name = name;
        this.described = described;
        this.threads = threads;
        this.gdb = gdb;
        this.executable = executable;
    }

    @Override
    public synchronized void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        blocks.read(address, buffer, offset, length);
    }

    private void readThroughGdb(long at, byte[] buffer, int offset, int length) {
        System.arraycopy(ask(at, length, at, length), 0, buffer, offset, length);
    }

    private byte[] ask(long at, int length, long address, int requested) {
        JsonObject answer;
        try {
            answer = gdb.ask("read", question -> {
                question.addProperty("address", "0x" + Long.toHexString(at));
                question.addProperty("length", length);
            });
        } catch (GdbQuestionException e) {
            throw new MemoryReadException(name(), address, requested, e.getMessage());
        }
        byte[] bytes = Base64.getDecoder().decode(answer.get("bytes").getAsString());
        if (bytes.length != length) {
            throw new MemoryReadException(name(), address, requested, "gdb returned " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String described() {
        return described;
    }

    @Override
    public TargetArchitecture architecture() {
        return TargetArchitecture.X86_64_LINUX;
    }

    /** The threads of the stop and their pthread ids, from gdb (the engine is not the tracer). */
    @Override
    public List<TargetThread> threads() {
        return threads.list(true).stream().map(GdbThreads.GdbThread::asTargetThread).toList();
    }

    @Override
    public String toString() {
        return name;
    }

    /** The target ran: what belongs to one stop (the thread list, cached memory) must be asked again. */
    @Override
    public synchronized void resumed() {
        threads.invalidate();
        blocks.clear();
    }

    private synchronized ModuleSymbols symbols() {
        if (symbols == null) {
            symbols = discoverModules();
        }
        return symbols;
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String symbolName) {
        return symbols().lookup(symbolName).or(() -> symbolThroughGdb(symbolName));
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String symbolName, String moduleNameFragment) {
        return symbols().lookup(symbolName, moduleNameFragment)
                .or(() -> symbolThroughGdb(symbolName).filter(symbol -> symbol.module().contains(moduleNameFragment)));
    }

    /**
     * A symbol of a module this machine has no matching file of (another machine behind gdbserver, whose
     * libraries gdb reads from the target or a sysroot): gdb knows it from the file it reads. Not for
     * thread-local symbols (gdb would answer the selected thread's address; jompd looks up none).
     */
    private Optional<TargetSymbol> symbolThroughGdb(String symbol) {
        try {
            JsonObject answer = gdb.ask("symbol", question -> question.addProperty("name", symbol));
            OptionalLong address = TargetContext.number(answer, "address");
            String module = answer.has("module") ? answer.get("module").getAsString() : "";
            return address.isPresent() ? Optional.of(new TargetSymbol(symbol, address.getAsLong(), 0, module, false))
                    : Optional.empty();
        } catch (GdbQuestionException unknown) {
            return Optional.empty();
        }
    }

    /** The files gdb reads the modules from (its sysroot applied), by file name, with their build-ids. */
    private record GdbObjfile(String filename, Optional<String> buildId) {
        /** Whether gdb's file is the module the process mapped at {@code targetPath}. */
        boolean isFor(String targetPath) {
            return filename.equals(targetPath) || filename.equals("target:" + targetPath) || filename.endsWith(targetPath);
        }

        /** The file on this machine, when gdb reads one (not fetched from the target). */
        Optional<Path> localFile() {
            return filename.startsWith("target:") || !Files.isRegularFile(Path.of(filename)) ? Optional.empty()
                    : Optional.of(Path.of(filename));
        }
    }

    private List<GdbObjfile> objfilesFromGdb() {
        try {
            JsonObject answer = gdb.ask("objfiles", question -> { });
            List<GdbObjfile> objfiles = new ArrayList<>();
            for (var element : answer.getAsJsonArray("objfiles")) {
                JsonObject objfile = element.getAsJsonObject();
                objfiles.add(new GdbObjfile(objfile.get("filename").getAsString(),
                        objfile.has("buildId") && !objfile.get("buildId").isJsonNull()
                                ? Optional.of(objfile.get("buildId").getAsString()) : Optional.empty()));
            }
            return objfiles;
        } catch (GdbQuestionException | IllegalStateException | ClassCastException | NullPointerException unknown) {
            return List.of(); // an older jompd.py, a strange answer: the link map's paths as they are
        }
    }

    /**
     * The module at {@code targetPath}: read from the file gdb reads (a sysroot's copy) when that is on this
     * machine, else from the same path here, which must then be the same build as gdb's (build-id); without
     * a usable file its symbols come through gdb.
     */
    private static ModuleSymbols.Module module(String targetPath, long loadBias, List<GdbObjfile> objfiles) {
        Optional<GdbObjfile> gdbFile = objfiles.stream().filter(o -> o.isFor(targetPath))
                .min(java.util.Comparator.comparing((GdbObjfile o) -> !o.filename().equals(targetPath)));
        Path file = gdbFile.flatMap(GdbObjfile::localFile).orElse(Path.of(targetPath));
        return new ModuleSymbols.Module(file, loadBias, gdbFile.flatMap(GdbObjfile::buildId));
    }

    @Override
    public List<LoadedModule> modules() {
        return symbols().loadedModules();
    }

    @Override
    public synchronized void close() {
        if (symbols != null) {
            symbols.close();
        }
    }

    /** The modules the dynamic linker's link map lists ({@link LinkMap#entries}); the first is the executable. */
    private ModuleSymbols discoverModules() {
        List<ModuleSymbols.Module> modules = new ArrayList<>();
        OptionalLong rDebug = symbolFromGdb("_r_debug");
        if (rDebug.isEmpty()) {
            // A static executable (no dynamic linker): the executable alone, where it was linked.
            executable.ifPresent(file -> modules.add(new ModuleSymbols.Module(file, 0)));
            return new ModuleSymbols(modules);
        }
        List<GdbObjfile> objfiles = objfilesFromGdb();
        boolean first = true;
        for (LinkMap.Entry entry : LinkMap.entries(this::readU64, rDebug.getAsLong())) {
            String path = path(entry);
            if (first && path.isEmpty()) {
                executable.ifPresent(file -> modules.add(new ModuleSymbols.Module(file, entry.loadBias())));
            } else if (path.startsWith("/")) {
                modules.add(module(path, entry.loadBias(), objfiles));
            }
            first = false;
        }
        return new ModuleSymbols(modules);
    }

    /** A link map entry's path; empty when it has none or it cannot be read. */
    private String path(LinkMap.Entry entry) {
        try {
            return entry.namePointer() == 0 ? "" : readCString(entry.namePointer(), MAX_PATH);
        } catch (TargetException unreadable) {
            return "";
        }
    }

    private OptionalLong symbolFromGdb(String symbol) {
        try {
            JsonObject answer = gdb.ask("symbol", question -> question.addProperty("name", symbol));
            return TargetContext.number(answer, "address");
        } catch (GdbQuestionException unknown) {
            return OptionalLong.empty();
        }
    }
}
