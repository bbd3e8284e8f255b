package dev.jompd.gdb;

/** gdb could not answer a question of the engine (unreadable memory, unknown symbol, no frames). */
public final class GdbQuestionException extends RuntimeException {

    /** @param question the question's name ({@code read}, {@code threads}, ...), for the message */
    public GdbQuestionException(String question, String message) {
        super("gdb could not answer " + question + ": " + message);
    }
}
