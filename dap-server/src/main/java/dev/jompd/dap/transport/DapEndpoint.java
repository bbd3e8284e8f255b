package dev.jompd.dap.transport;

/** What a transport hands each connection's messages to: one session per connection. */
public interface DapEndpoint {
    /** One framed message's JSON text (not yet parsed: it may be invalid JSON). */
    void receive(String json);

    /** The connection closed (client gone or framing broken): end the session and free its gdb. */
    void closed(String why);

    /** Waits (bounded) until the session has finished what it was doing when the connection closed. */
    default void awaitEnd(java.time.Duration timeout) {}

    /** Creates the endpoint for a new connection. */
    interface Factory {
        DapEndpoint open(DapPeer peer);
    }
}
