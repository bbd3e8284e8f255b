package dev.jompd.dap.gdb;

import java.util.Optional;

/**
 * A variable or a gdb variable object's child.
 *
 * @param name       the name a user sees
 * @param expression what to evaluate for it (a child's path expression), when known
 * @param value      its value; empty for aggregates listed with simple values
 * @param type       its C type
 * @param varobj     the variable object's name, when it is one (children are listed through it)
 * @param children   how many children it has (0: a leaf)
 */
public record GdbVariable(String name, Optional<String> expression, Optional<String> value, Optional<String> type,
                          Optional<String> varobj, int children) {}
