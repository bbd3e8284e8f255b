package dev.jompd.dap.transport;

/** The client end of one DAP connection, as a session sees it: send a message, or hang up. */
public interface DapPeer {
    /** Sends one JSON message (thread-safe; messages leave in the order of the calls). */
    void send(String json);

    /** Closes the connection (idempotent). */
    void close();

    /** For logs: {@code tcp:127.0.0.1:53412} or {@code stdio}. */
    String describe();
}
