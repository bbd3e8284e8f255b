package dev.jompd.core.recorder;

/**
 * What the recorder attached to a parallel region or task: the record its OMPT tool data
 * ({@code ompt_data_t.ptr}, so ompd_get_tool_data) points to.
 *
 * @param id                the recorder's id of the region or task, as its events name it
 * @param codeReturnAddress the creation site ({@code codeptr_ra}; 0 for implicit tasks)
 * @param flags             parallel flags or task flags
 * @param parentTaskId      the encountering task's id
 * @param parallelism       requested (parallel region) or actual (implicit task) team size
 */
public record RecordedRegion(long address, long id, long codeReturnAddress, long beginTimeNanos, long flags,
                             long parentTaskId, long parallelism) {}
