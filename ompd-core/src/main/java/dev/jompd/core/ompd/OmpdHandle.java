package dev.jompd.core.ompd;

/**
 * A handle OMPD hands out and takes back ({@code ompd_address_space_handle_t}, {@code ompd_thread_handle_t},
 * {@code ompd_parallel_handle_t}, {@code ompd_task_handle_t}): each belongs to one scope and one address space.
 */
public sealed interface OmpdHandle permits AddressSpaceHandle, ThreadHandle, ParallelHandle, TaskHandle {
    /** The scope this handle stands for. */
    Scope scope();

    /**
     * Whether this handle is one that {@code scope} takes (OpenMP 6.0's table of scopes and handles): its own
     * scope; a parallel handle also serves {@link Scope#TEAMS} when it names a team's implicit parallel region.
     */
    default boolean serves(Scope scope) {
        return scope() == scope;
    }

    /** The address space it belongs to ({@code stale_handle} once its stop has ended). */
    AddressSpaceHandle space();
}
