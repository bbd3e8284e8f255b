package dev.jompd.gdb;

/** gdb could not answer a question of the engine (unreadable memory, unknown symbol, no frames). */
public final class GdbQuestionException extends RuntimeException {
    private final String question;

    public GdbQuestionException(String question, String message) {
        super("gdb could not answer " + question + ": " + message);
        this.question = question;
    }

    /** The question's name ({@code read}, {@code threads}, ...). */
    public String question() {
        return question;
    }
}
