package dev.jompd.core.target.debug;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.target.TargetException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A debuginfod client as elfutils' and gdb's: servers from {@code DEBUGINFOD_URLS} (space-separated),
 * {@code GET URL/buildid/HEX/debuginfo}, the answer cached as {@code CACHE/HEX/debuginfo} where gdb
 * keeps it ({@code $DEBUGINFOD_CACHE_PATH}, else {@code $XDG_CACHE_HOME/debuginfod_client}, else
 * {@code ~/.cache/debuginfod_client}), {@code DEBUGINFOD_TIMEOUT} seconds (default 90) for a server to
 * answer. No URLs means no network at all (offline). A download whose build-id is not the one asked for
 * is refused and not cached. What happens is said through {@code messages} (stderr by default).
 */
public final class DebuginfodClient {
    /** Downloads at least this large report their progress. */
    static final long LARGE_DOWNLOAD = 1L << 20;
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(90);

    private final List<URI> servers;
    private final Path cache;
    private final Duration timeout;
    private final Consumer<String> messages;

    public DebuginfodClient(List<URI> servers, Path cache, Duration timeout, Consumer<String> messages) {
        this.servers = List.copyOf(servers);
        this.cache = cache;
        this.timeout = timeout;
        this.messages = messages;
    }

    /** Configured as gdb's client is, from the environment; messages go to stderr. */
    public static DebuginfodClient fromEnvironment() {
        return fromEnvironment(System.getenv(), line -> System.err.println("jompd: " + line));
    }

    public static DebuginfodClient fromEnvironment(Map<String, String> env, Consumer<String> messages) {
        List<URI> servers = new ArrayList<>();
        for (String url : env.getOrDefault("DEBUGINFOD_URLS", "").trim().split("\\s+")) {
            if (!url.isBlank()) {
                servers.add(URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url));
            }
        }
        Path cache;
        if (env.get("DEBUGINFOD_CACHE_PATH") != null && !env.get("DEBUGINFOD_CACHE_PATH").isBlank()) {
            cache = Path.of(env.get("DEBUGINFOD_CACHE_PATH"));
        } else if (env.get("XDG_CACHE_HOME") != null && !env.get("XDG_CACHE_HOME").isBlank()) {
            cache = Path.of(env.get("XDG_CACHE_HOME"), "debuginfod_client");
        } else {
            cache = Path.of(System.getProperty("user.home"), ".cache", "debuginfod_client");
        }
        Duration timeout = DEFAULT_TIMEOUT;
        String configured = env.get("DEBUGINFOD_TIMEOUT");
        if (configured != null && configured.strip().matches("\\d+")) {
            timeout = Duration.ofSeconds(Math.max(1, Long.parseLong(configured.strip())));
        }
        return new DebuginfodClient(servers, cache, timeout, messages);
    }

    public List<URI> servers() {
        return servers;
    }

    public Path cacheDirectory() {
        return cache;
    }

    /**
     * The debug file of {@code buildId}: the cached copy when there is one, else downloaded from the first
     * server that has it. Empty (with the reason said) when no server answers with the right file.
     */
    public Optional<DebugFileOrigin> debugInfo(String buildId, String moduleName) {
        if (!buildId.matches("[0-9a-f]{2,}")) {
            return Optional.empty();
        }
        Path cached = cache.resolve(buildId).resolve("debuginfo");
        if (Files.isRegularFile(cached) && hasBuildId(cached, buildId)) {
            return Optional.of(new DebugFileOrigin(DebugFileOrigin.Kind.DEBUGINFOD, cached,
                    servers.isEmpty() ? Optional.empty() : Optional.of(servers.getFirst())));
        }
        if (servers.isEmpty()) {
            return Optional.empty(); // offline: no URLs, no network
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NORMAL).build();
        for (URI server : servers) {
            URI url = URI.create(server + "/buildid/" + buildId + "/debuginfo");
            try {
                Optional<Path> downloaded = download(http, url, buildId, moduleName);
                if (downloaded.isPresent()) {
                    return Optional.of(new DebugFileOrigin(DebugFileOrigin.Kind.DEBUGINFOD, downloaded.get(), Optional.of(server)));
                }
            } catch (HttpTimeoutException e) {
                messages.accept("debuginfod " + server + " did not answer within " + timeout.toSeconds()
                        + " s (DEBUGINFOD_TIMEOUT) for " + moduleName + " build-id " + buildId);
            } catch (ConnectException e) {
                messages.accept("debuginfod " + server + " is unreachable (" + describe(e) + ")");
            } catch (IOException e) {
                messages.accept("debuginfod " + server + " failed for " + moduleName + ": " + describe(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private Optional<Path> download(HttpClient http, URI url, String buildId, String moduleName)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout).GET().build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                if (response.statusCode() != 404) {
                    messages.accept("debuginfod " + url + " answered HTTP " + response.statusCode());
                }
                return Optional.empty();
            }
            long length = response.headers().firstValueAsLong("Content-Length").orElse(-1);
            Path directory = cache.resolve(buildId);
            Files.createDirectories(directory);
            Path partial = Files.createTempFile(directory, ".debuginfo", ".part");
            try {
                copy(body, partial, length, url, moduleName);
                if (!hasBuildId(partial, buildId)) {
                    messages.accept("debuginfod " + url + " served a file whose build-id is not " + buildId + " ("
                            + buildIdOf(partial).orElse("none") + "): refused, " + moduleName + " stays without it");
                    return Optional.empty();
                }
                Path target = directory.resolve("debuginfo");
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return Optional.of(target);
            } finally {
                Files.deleteIfExists(partial);
            }
        }
    }

    private void copy(InputStream body, Path file, long length, URI url, String moduleName) throws IOException {
        boolean large = length >= LARGE_DOWNLOAD;
        if (large) {
            messages.accept("downloading debug info for " + moduleName + " from " + url + " (" + mebibytes(length) + ")");
        }
        byte[] buffer = new byte[1 << 16];
        long copied = 0;
        int reportedQuarter = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int read; (read = body.read(buffer)) > 0; ) {
                out.write(buffer, 0, read);
                copied += read;
                if (large && copied * 4 / length > reportedQuarter && copied < length) {
                    reportedQuarter = (int) (copied * 4 / length);
                    messages.accept("  " + (reportedQuarter * 25) + "% of " + mebibytes(length));
                }
            }
        }
        if (large) {
            messages.accept("  done: " + mebibytes(copied) + " cached in " + file.getParent());
        }
    }

    private static String mebibytes(long bytes) {
        return "%.1f MiB".formatted(bytes / (double) (1 << 20));
    }

    private static boolean hasBuildId(Path file, String buildId) {
        return buildIdOf(file).equals(Optional.of(buildId));
    }

    private static Optional<String> buildIdOf(Path file) {
        try (ElfFile elf = ElfFile.open(file)) {
            return elf.buildId();
        } catch (IOException | TargetException e) {
            return Optional.empty();
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
