package dev.jompd.core.ompd;

/**
 * Which task a value of a snapshot belongs to: the task's address and the lightweight team whose implicit
 * task it is (0: a task of its own). A value that outlives the stop, unlike the handle.
 */
public record TaskKey(long address, long lightweight) {}
