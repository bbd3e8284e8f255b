package dev.jompd.core.target.live;

/**
 * Attaches to the process given as argument and prints the outcome ({@code ATTACHED n} or
 * {@code REFUSED reason message}): run in a separate JVM under another user by {@link PermissionDeniedIT}.
 */
public final class AttachProbe {
    private AttachProbe() {}

    public static void main(String[] arguments) {
        long pid = Long.parseLong(arguments[0]);
        try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(pid)) {
            System.out.println("ATTACHED " + space.threads().size());
        } catch (AttachException e) {
            System.out.println("REFUSED " + e.reason() + " " + e.getMessage());
        }
    }
}
