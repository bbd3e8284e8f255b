package dev.jompd.dap.transport;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * Which user's process holds the other end of a TCP connection made on this machine: the kernel's socket table
 * ({@code /proc/net/tcp}, {@code /proc/net/tcp6}) lists the client's socket — local address the connection's
 * remote one, remote address its local one — with the uid that owns it. What {@code SO_PEERCRED} tells of a Unix
 * socket, for TCP; identd answers from the same table.
 */
final class TcpPeers {
    private static final Path TCP = Path.of("/proc/net/tcp");
    private static final Path TCP6 = Path.of("/proc/net/tcp6");
    private static final int LOCAL = 1;
    private static final int REMOTE = 2;
    private static final int UID = 7;

    private TcpPeers() {}

    /** The uid owning the client's socket of connection {@code local <- remote}; empty when no process here holds it. */
    static OptionalInt owner(InetSocketAddress local, InetSocketAddress remote) {
        for (Path table : List.of(TCP, TCP6)) {
            boolean six = table == TCP6;
            String clientEnd = encode(remote, six);
            String serverEnd = encode(local, six);
            if (clientEnd.isEmpty() || serverEnd.isEmpty()) {
                continue;
            }
            try (Stream<String> lines = Files.lines(table)) {
                OptionalInt uid = lines.skip(1).map(String::trim).map(line -> line.split("\\s+"))
                        .filter(fields -> fields.length > UID && fields[LOCAL].equals(clientEnd) && fields[REMOTE].equals(serverEnd))
                        .mapToInt(fields -> Integer.parseInt(fields[UID])).findFirst();
                if (uid.isPresent()) {
                    return uid;
                }
            } catch (IOException | RuntimeException e) {
                // no such table (no IPv6) or unreadable: the next, else unknown
            }
        }
        return OptionalInt.empty();
    }

    /**
     * An address as the kernel prints it: each 32-bit word of the address in host (little-endian) order, in hex,
     * then the port; an IPv4 address in the IPv6 table as {@code ::ffff:a.b.c.d}. Empty when it has no such form.
     */
    static String encode(InetSocketAddress address, boolean six) {
        InetAddress host = address.getAddress();
        if (host == null) {
            return "";
        }
        byte[] bytes = host.getAddress();
        if (host instanceof Inet4Address && six) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(bytes, 0, mapped, 12, 4);
            bytes = mapped;
        } else if (bytes.length != (six ? 16 : 4)) {
            return "";
        }
        StringBuilder hex = new StringBuilder();
        for (int word = 0; word < bytes.length; word += 4) {
            for (int i = 3; i >= 0; i--) {
                hex.append(HexFormat.of().withUpperCase().toHexDigits(bytes[word + i]));
            }
        }
        return hex.append(':').append(String.format("%04X", address.getPort())).toString();
    }
}
