package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.util.OptionalLong;

/**
 * Evaluates DWARF expressions as call frame information uses them ({@code DW_CFA_def_cfa_expression},
 * {@code DW_CFA_expression}, {@code DW_CFA_val_expression}): a value stack of bounded depth, a bounded
 * number of operations (branches cannot loop), registers and memory supplied by the caller.
 */
public final class DwarfExpression {
    static final int MAX_STACK = 64;
    static final int MAX_OPERATIONS = 1024;

    /** The register values of the frame the expression is evaluated in, by DWARF number. */
    public interface Registers {
        OptionalLong get(int dwarfRegister);
    }

    /** The target's memory: reads one little-endian value of {@code size} (1, 2, 4 or 8) bytes. */
    public interface Memory {
        long read(long address, int size);
    }

    private DwarfExpression() {}

    /**
     * The value on top of the stack after evaluating {@code expression}, with {@code initial} pushed
     * first when given (the CFA, for register rules).
     *
     * @throws DwarfFormatException for a malformed expression, an unsupported operation, a stack
     *                              overflow or underflow, or a register without a value
     */
    public static long evaluate(ByteView expression, OptionalLong initial, Registers registers, Memory memory) {
        long[] stack = new long[MAX_STACK];
        int depth = 0;
        if (initial.isPresent()) {
            stack[depth++] = initial.getAsLong();
        }
        DwarfCursor cursor = new DwarfCursor(expression, 0);
        long end = expression.size();
        String source = expression.source();
        int operations = 0;
        while (cursor.position() < end) {
            if (++operations > MAX_OPERATIONS) {
                throw new DwarfFormatException(source, "expression runs more than " + MAX_OPERATIONS + " operations");
            }
            int op = cursor.u8();
            if (op >= 0x30 && op <= 0x4f) { // DW_OP_lit0..31
                depth = push(stack, depth, op - 0x30, source);
                continue;
            }
            if (op >= 0x70 && op <= 0x8f) { // DW_OP_breg0..31
                long offset = cursor.sleb();
                depth = push(stack, depth, register(registers, op - 0x70, source) + offset, source);
                continue;
            }
            if (op >= 0x50 && op <= 0x6f) { // DW_OP_reg0..31: a location, not a value; not valid in CFI
                throw new DwarfFormatException(source, "register location DW_OP_reg%d in a value expression".formatted(op - 0x50));
            }
            switch (op) {
                case 0x03 -> depth = push(stack, depth, cursor.u64(), source); // addr
                case 0x06 -> { // deref
                    need(depth, 1, source);
                    stack[depth - 1] = memory.read(stack[depth - 1], 8);
                }
                case 0x94 -> { // deref_size
                    int size = cursor.u8();
                    if (size != 1 && size != 2 && size != 4 && size != 8) {
                        throw new DwarfFormatException(source, "DW_OP_deref_size " + size);
                    }
                    need(depth, 1, source);
                    stack[depth - 1] = memory.read(stack[depth - 1], size);
                }
                case 0x08 -> depth = push(stack, depth, cursor.u8(), source);
                case 0x09 -> depth = push(stack, depth, (byte) cursor.u8(), source);
                case 0x0a -> depth = push(stack, depth, cursor.u16(), source);
                case 0x0b -> depth = push(stack, depth, (short) cursor.u16(), source);
                case 0x0c -> depth = push(stack, depth, cursor.u32(), source);
                case 0x0d -> depth = push(stack, depth, cursor.s32(), source);
                case 0x0e, 0x0f -> depth = push(stack, depth, cursor.u64(), source);
                case 0x10 -> depth = push(stack, depth, cursor.uleb(), source);
                case 0x11 -> depth = push(stack, depth, cursor.sleb(), source);
                case 0x12 -> { // dup
                    need(depth, 1, source);
                    depth = push(stack, depth, stack[depth - 1], source);
                }
                case 0x13 -> { // drop
                    need(depth, 1, source);
                    depth--;
                }
                case 0x14 -> { // over
                    need(depth, 2, source);
                    depth = push(stack, depth, stack[depth - 2], source);
                }
                case 0x15 -> { // pick
                    int index = cursor.u8();
                    need(depth, index + 1, source);
                    depth = push(stack, depth, stack[depth - 1 - index], source);
                }
                case 0x16 -> { // swap
                    need(depth, 2, source);
                    long top = stack[depth - 1];
                    stack[depth - 1] = stack[depth - 2];
                    stack[depth - 2] = top;
                }
                case 0x17 -> { // rot
                    need(depth, 3, source);
                    long top = stack[depth - 1];
                    stack[depth - 1] = stack[depth - 2];
                    stack[depth - 2] = stack[depth - 3];
                    stack[depth - 3] = top;
                }
                case 0x19 -> { // abs
                    need(depth, 1, source);
                    stack[depth - 1] = Math.abs(stack[depth - 1]);
                }
                case 0x1f -> { // neg
                    need(depth, 1, source);
                    stack[depth - 1] = -stack[depth - 1];
                }
                case 0x20 -> { // not
                    need(depth, 1, source);
                    stack[depth - 1] = ~stack[depth - 1];
                }
                case 0x23 -> { // plus_uconst
                    need(depth, 1, source);
                    stack[depth - 1] += cursor.uleb();
                }
                case 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27,
                     0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e -> {
                    need(depth, 2, source);
                    long b = stack[--depth];
                    long a = stack[depth - 1];
                    stack[depth - 1] = binary(op, a, b, source);
                }
                case 0x28 -> { // bra
                    int offset = (short) cursor.u16();
                    need(depth, 1, source);
                    if (stack[--depth] != 0) {
                        jump(cursor, offset, end, source);
                    }
                }
                case 0x2f -> jump(cursor, (short) cursor.u16(), end, source); // skip
                case 0x92 -> { // bregx
                    int register = cursor.ulebInt("register");
                    long offset = cursor.sleb();
                    depth = push(stack, depth, register(registers, register, source) + offset, source);
                }
                case 0x96 -> { } // nop
                default -> throw new DwarfFormatException(source, "unsupported DWARF operation 0x%x".formatted(op));
            }
        }
        need(depth, 1, source);
        return stack[depth - 1];
    }

    private static long binary(int op, long a, long b, String source) {
        return switch (op) {
            case 0x1a -> a & b;
            case 0x1b -> {
                if (b == 0) {
                    throw new DwarfFormatException(source, "division by zero");
                }
                yield a / b;
            }
            case 0x1c -> a - b;
            case 0x1d -> {
                if (b == 0) {
                    throw new DwarfFormatException(source, "modulo by zero");
                }
                yield Long.remainderUnsigned(a, b);
            }
            case 0x1e -> a * b;
            case 0x21 -> a | b;
            case 0x22 -> a + b;
            case 0x24 -> b >= 64 || b < 0 ? 0 : a << b;
            case 0x25 -> b >= 64 || b < 0 ? 0 : a >>> b;
            case 0x26 -> b >= 64 || b < 0 ? (a < 0 ? -1 : 0) : a >> b;
            case 0x27 -> a ^ b;
            case 0x29 -> a == b ? 1 : 0;
            case 0x2a -> a >= b ? 1 : 0;
            case 0x2b -> a > b ? 1 : 0;
            case 0x2c -> a <= b ? 1 : 0;
            case 0x2d -> a < b ? 1 : 0;
            case 0x2e -> a != b ? 1 : 0;
            default -> throw new IllegalStateException("not a binary operation: " + op);
        };
    }

    private static void jump(DwarfCursor cursor, int offset, long end, String source) {
        long target = cursor.position() + offset;
        if (target < 0 || target > end) {
            throw new DwarfFormatException(source, "branch to %d leaves the expression".formatted(target));
        }
        cursor.seek(target);
    }

    private static long register(Registers registers, int number, String source) {
        OptionalLong value = registers.get(number);
        if (value.isEmpty()) {
            throw new DwarfFormatException(source, "register %d has no known value in this frame".formatted(number));
        }
        return value.getAsLong();
    }

    private static int push(long[] stack, int depth, long value, String source) {
        if (depth >= stack.length) {
            throw new DwarfFormatException(source, "expression stack deeper than " + stack.length);
        }
        stack[depth] = value;
        return depth + 1;
    }

    private static void need(int depth, int count, String source) {
        if (depth < count) {
            throw new DwarfFormatException(source, "expression stack underflow");
        }
    }
}
