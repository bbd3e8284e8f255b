package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import java.util.Optional;

/** Reading a request's arguments strictly: a missing or mistyped one is an INVALID_ARGUMENTS error naming it. */
final class Arguments {
    private Arguments() {}

    static JsonObject object(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || !value.isJsonObject()) {
            throw invalid("`" + name + "` must be an object");
        }
        return value.getAsJsonObject();
    }

    static int integer(JsonObject args, String name) {
        return optionalInteger(args, name).orElseThrow(() -> invalid("`" + name + "` is required"));
    }

    static Optional<Integer> optionalInteger(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isNumber()) {
            throw invalid("`" + name + "` must be a number, not " + DapSession.abbreviate(value));
        }
        double number = primitive.getAsDouble();
        if (number != Math.rint(number) || number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
            throw invalid("`" + name + "` must be an integer, not " + primitive);
        }
        return Optional.of((int) number);
    }

    static Optional<String> optionalString(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isString()) {
            throw invalid("`" + name + "` must be a string, not " + DapSession.abbreviate(value));
        }
        return Optional.of(primitive.getAsString());
    }

    static Optional<Boolean> optionalBoolean(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isBoolean()) {
            throw invalid("`" + name + "` must be true or false, not " + DapSession.abbreviate(value));
        }
        return Optional.of(primitive.getAsBoolean());
    }

    static DapException invalid(String message) {
        return new DapException(ErrorId.INVALID_ARGUMENTS, message);
    }
}
