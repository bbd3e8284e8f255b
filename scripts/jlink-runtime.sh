#!/usr/bin/env bash
# Makes the Java runtime that jompd's self-contained distributions carry: a jlink image of the JDK 25 it
# is built with, holding only the modules jompd's jars use (`jdeps --print-module-deps` over the
# distributions' lib/*.jar: java.base, java.net.http for debuginfod, java.logging for lsp4j, and what
# gson, netty and picocli reach), with a default class-data archive. About 70 MB; made once per JDK build
# into the cache and copied from there.
#
# usage: scripts/jlink-runtime.sh OUTPUT_DIRECTORY
set -euo pipefail
. "$(dirname "$0")/common.sh"

output="${1:?usage: scripts/jlink-runtime.sh OUTPUT_DIRECTORY}"
modules=java.base,java.compiler,java.logging,java.management,java.net.http,java.sql,jdk.jfr,jdk.unsupported
jompd_select_java
jdk_id=$(cksum < "$JAVA_HOME/release" | cut -d' ' -f1)-$(printf '%s' "$modules" | cksum | cut -d' ' -f1)
cached="$JOMPD_CACHE/jlink/$jdk_id"
if [ ! -f "$cached/.jompd-complete" ]; then
  jompd_log "making the Java runtime image (jlink, once per JDK build)"
  rm -rf "$cached" && mkdir -p "$(dirname "$cached")"
  # --generate-cds-archive: the image's own default CDS archive (start-up, as the JDK's lib/server/classes.jsa)
  jlink --add-modules "$modules" --output "$cached" --strip-debug --no-man-pages --no-header-files \
        --compress zip-6 --generate-cds-archive >/dev/null
  : > "$cached/.jompd-complete"
fi
rm -rf "$output"
mkdir -p "$(dirname "$output")"
cp -a "$cached" "$output"
rm -f "$output/.jompd-complete"
