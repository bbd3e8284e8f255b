package dev.jompd.dap.mi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MiParserTest {

    @Test
    void resultRecordCarriesTokenClassAndResults() {
        MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse("12^done,value=\"42\"");
        assertThat(record.token()).hasValue(12);
        assertThat(record.resultClass()).isEqualTo("done");
        assertThat(record.results().requireString("value")).isEqualTo("42");
    }

    @Test
    void resultRecordWithoutTokenOrResults() {
        MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse("^running");
        assertThat(record.token()).isEmpty();
        assertThat(record.resultClass()).isEqualTo("running");
        assertThat(record.results().results()).isEmpty();
    }

    @Test
    void errorRecordExposesItsMessage() {
        MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse(
                "7^error,msg=\"No symbol \\\"nosuch\\\" in current context.\"");
        assertThat(record.isError()).isTrue();
        assertThat(record.results().requireString("msg")).isEqualTo("No symbol \"nosuch\" in current context.");
    }

    @Test
    void stoppedRecordWithNestedFrameTuple() {
        MiRecord.AsyncRecord record = (MiRecord.AsyncRecord) MiParser.parse(
                "*stopped,reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\",frame={addr=\"0x0000555555556b58\","
                        + "func=\"jompd_marker\",args=[],file=\"fixture.c\",fullname=\"/src/fixture.c\",line=\"27\","
                        + "arch=\"i386:x86-64\"},thread-id=\"1\",stopped-threads=\"all\",core=\"0\"");
        assertThat(record.kind()).isEqualTo(MiRecord.AsyncKind.EXEC);
        assertThat(record.asyncClass()).isEqualTo("stopped");
        MiValue frame = record.results().get("frame").orElseThrow();
        assertThat(frame).isInstanceOf(MiValue.Tuple.class);
        assertThat(frame.requireString("func")).isEqualTo("jompd_marker");
        assertThat(frame.get("args").orElseThrow()).isInstanceOf(MiValue.ListValue.class);
        assertThat(frame.get("args").orElseThrow().items()).isEmpty();
        assertThat(record.results().requireString("stopped-threads")).isEqualTo("all");
    }

    @Test
    void listsKeepRepeatedNamesInOrder() {
        MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse(
                "^done,stack=[frame={level=\"0\",func=\"a\"},frame={level=\"1\",func=\"b\"},frame={level=\"2\",func=\"c\"}]");
        MiValue stack = record.results().get("stack").orElseThrow();
        assertThat(stack.getAll("frame")).hasSize(3);
        assertThat(stack.items()).extracting(frame -> frame.requireString("func")).containsExactly("a", "b", "c");
    }

    @Test
    void tuplesMayRepeatNamesToo() {
        MiValue.Tuple results = ((MiRecord.ResultRecord) MiParser.parse("^done,x={a=\"1\",a=\"2\"}")).results();
        assertThat(results.get("x").orElseThrow().getAll("a")).extracting(MiValue::text).containsExactly("1", "2");
        assertThat(results.get("x").orElseThrow().requireString("a")).isEqualTo("1");
    }

    @Test
    void valueListsHoldUnnamedValues() {
        MiValue list = ((MiRecord.ResultRecord) MiParser.parse("^done,groups=[\"i1\",\"i2\"],empty=[],t={}"))
                .results().get("groups").orElseThrow();
        assertThat(list.results()).allSatisfy(result -> assertThat(result.name()).isNull());
        assertThat(list.items()).extracting(MiValue::text).containsExactly("i1", "i2");
    }

    @Test
    void listsOfTuplesAndListsOfLists() {
        MiValue.Tuple results = ((MiRecord.ResultRecord) MiParser.parse(
                "^done,threads=[{id=\"1\",target-id=\"Thread 0x7ffff7ca9740 (LWP 31052)\"},{id=\"2\"}],m=[[\"a\"],[]]"))
                .results();
        assertThat(results.get("threads").orElseThrow().items()).hasSize(2);
        assertThat(results.get("m").orElseThrow().items()).hasSize(2);
        assertThat(results.get("m").orElseThrow().items().getFirst().items()).extracting(MiValue::text).containsExactly("a");
    }

    @Test
    void notifyAndStatusRecords() {
        MiRecord.AsyncRecord notify = (MiRecord.AsyncRecord) MiParser.parse(
                "=thread-group-started,id=\"i1\",pid=\"4711\"");
        assertThat(notify.kind()).isEqualTo(MiRecord.AsyncKind.NOTIFY);
        assertThat(notify.results().requireString("pid")).isEqualTo("4711");
        MiRecord.AsyncRecord status = (MiRecord.AsyncRecord) MiParser.parse("+download,{section=\".text\"}".replace(",{", ",x={"));
        assertThat(status.kind()).isEqualTo(MiRecord.AsyncKind.STATUS);
        MiRecord.AsyncRecord tokened = (MiRecord.AsyncRecord) MiParser.parse("33*running,thread-id=\"all\"");
        assertThat(tokened.token()).hasValue(33);
    }

    @Test
    void streamRecordsOfEachKind() {
        assertThat(MiParser.parse("~\"hello\\n\"")).isEqualTo(new MiRecord.StreamRecord(MiRecord.StreamKind.CONSOLE, "hello\n"));
        assertThat(MiParser.parse("@\"out\"")).isEqualTo(new MiRecord.StreamRecord(MiRecord.StreamKind.TARGET, "out"));
        assertThat(MiParser.parse("&\"warning: x\\n\"")).isEqualTo(new MiRecord.StreamRecord(MiRecord.StreamKind.LOG, "warning: x\n"));
    }

    @Test
    void promptWithOrWithoutTrailingSpaceAndCarriageReturn() {
        assertThat(MiParser.parse("(gdb)")).isInstanceOf(MiRecord.Prompt.class);
        assertThat(MiParser.parse("(gdb) ")).isInstanceOf(MiRecord.Prompt.class);
        assertThat(MiParser.parse("(gdb) \r")).isInstanceOf(MiRecord.Prompt.class);
        assertThat(MiParser.parse("^done\r")).isInstanceOf(MiRecord.ResultRecord.class);
    }

    @Test
    void linesThatAreNotMiAreUnrecognizedNotErrors() {
        assertThat(MiParser.parse("Hello from the program")).isEqualTo(new MiRecord.Unrecognized("Hello from the program"));
        assertThat(MiParser.parse("")).isInstanceOf(MiRecord.Unrecognized.class);
        assertThat(MiParser.parse("123 apples")).isInstanceOf(MiRecord.Unrecognized.class);
    }

    @Test
    void cStringEscapesDecode() {
        String text = ((MiRecord.StreamRecord) MiParser.parse("~\"a\\tb\\\\c\\\"d\\r\\n\\a\\b\\f\\v\\e\\'\\?\"")).text();
        assertThat(text).isEqualTo("a\tb\\c\"d\r\n\u0007\b\f\u000b\u001b'?");
    }

    @Test
    void octalEscapesAreBytesOfUtf8() {
        // "é" is 0xC3 0xA9 in UTF-8; gdb prints it as \303\251
        String text = ((MiRecord.StreamRecord) MiParser.parse("~\"caf\\303\\251 \\342\\202\\254\"")).text();
        assertThat(text).isEqualTo("café €");
    }

    @Test
    void rawNonAsciiCharactersPassThrough() {
        assertThat(((MiRecord.StreamRecord) MiParser.parse("~\"naïve → ok\"")).text()).isEqualTo("naïve → ok");
    }

    @Test
    void hexAndShortOctalEscapes() {
        assertThat(((MiRecord.StreamRecord) MiParser.parse("~\"\\x41\\0\\12x\"")).text()).isEqualTo("A\0\nx");
    }

    @Test
    void invalidUtf8BytesBecomeReplacementCharacters() {
        assertThat(((MiRecord.StreamRecord) MiParser.parse("~\"\\377x\"")).text()).isEqualTo("\uFFFDx");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "^done,",                       // result expected after comma
            "^done,x",                      // no '='
            "^done,x=",                     // no value
            "^done,x=1",                    // unquoted value
            "^done,x=\"abc",                // unterminated string
            "^done,x=\"a\\q\"",             // unknown escape
            "^done,x=\"a\\",                // escape at end
            "^done,x={a=\"1\"",             // unterminated tuple
            "^done,x=[\"1\",",              // unterminated list
            "^done,x=[\"1\" \"2\"]",        // missing comma
            "^done,x={\"1\"}",              // tuple element without name
            "^done,x=\"1\"garbage",         // junk after value
            "^done,x=\"1\",,y=\"2\"",       // empty result
            "^",                            // no class
            "*",                            // no class
            "~hello",                       // stream without string
            "~\"a\"b",                      // junk after stream string
            "5~\"a\"",                      // token before stream
            "^done,x=[a=\"1\",\"2\"]",      // mixed list
            "^done,x=\"\\xZZ\"",            // bad hex escape
            "1234567890123456789^done"      // token too long
    })
    void malformedMiIsRejectedWithItsPosition(String line) {
        assertThatThrownBy(() -> MiParser.parse(line)).isInstanceOf(MiParseException.class)
                .satisfies(e -> {
                    MiParseException parse = (MiParseException) e;
                    assertThat(parse.line()).isEqualTo(line);
                    assertThat(parse.position()).isBetween(0, line.length());
                    assertThat(parse.getMessage()).contains("column");
                });
    }

    @Test
    void deepNestingIsBoundedNotAStackOverflow() {
        String deep = "^done,x=" + "[".repeat(100_000) + "]".repeat(100_000);
        assertThatThrownBy(() -> MiParser.parse(deep)).isInstanceOf(MiParseException.class)
                .hasMessageContaining("nesting");
        String fine = "^done,x=" + "[".repeat(200) + "]".repeat(200);
        assertThat(MiParser.parse(fine)).isInstanceOf(MiRecord.ResultRecord.class);
    }

    @Test
    void quotedParametersRoundTripThroughTheParser() {
        for (String text : List.of("plain", "with \"quotes\" and \\ backslashes", "tab\tnew\nline\rcr",
                "ctrl\u0001\u007f", "unicode é ∑ 😀", "")) {
            String line = "^done,v=" + MiStrings.quote(text);
            assertThat(((MiRecord.ResultRecord) MiParser.parse(line)).results().requireString("v")).isEqualTo(text);
        }
    }

    @Test
    void renderedValuesParseBackToEqualValues() {
        String line = "^done,a=\"1\",b={c=\"x\\\"y\",d=[e={f=\"2\"},e={f=\"3\"}]},g=[\"h\",\"i\"],j=[],k={}";
        MiValue.Tuple results = ((MiRecord.ResultRecord) MiParser.parse(line)).results();
        String rendered = "^done," + results.toString().substring(1, results.toString().length() - 1);
        assertThat(((MiRecord.ResultRecord) MiParser.parse(rendered)).results()).isEqualTo(results);
    }

    @Test
    void randomGarbageNeverThrowsAnythingButParseErrors() {
        Random random = new Random(42);
        String alphabet = "^*+=~@&{}[]\",=\\abc012 \t\u00e9";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder line = new StringBuilder();
            int length = random.nextInt(40);
            for (int j = 0; j < length; j++) {
                line.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            try {
                MiParser.parse(line.toString());
            } catch (MiParseException expected) {
                // fine: malformed
            }
        }
    }

    @Test
    void missingFieldsAreReportedByName() {
        MiValue.Tuple results = ((MiRecord.ResultRecord) MiParser.parse("^done,a=\"1\",t={}")).results();
        assertThat(results.string("b")).isEmpty();
        assertThatThrownBy(() -> results.requireString("b")).isInstanceOf(MiFormatException.class).hasMessageContaining("b");
        assertThatThrownBy(() -> results.get("t").orElseThrow().text()).isInstanceOf(MiFormatException.class);
    }
}
