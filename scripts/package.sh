#!/usr/bin/env bash
# Makes jompd's self-contained distributions from a built tree (mvn install): no JDK needed where they run.
#   dist/jompd-VERSION-linux-x64.tar.gz   unpack anywhere, run bin/jompd (no root, no JDK)
#   dist/jompd_VERSION_amd64.deb          apt install ./jompd_*.deb: /opt/jompd, jompd on PATH, gdb's ompd commands
# Both hold one image: bin/ (jompd, jompd-dap, jompd-recorder), lib/ (the jars of the command line, the gdb
# engine and the DAP server), runtime/ (a jlink image of JDK 25 with only the modules jompd uses),
# gdb/jompd.py, the recorder's sources and the runtime build scripts. The VS Code extension's platform
# package (vscode-extension/build.sh --platform linux-x64) carries the same runtime.
#
# usage: scripts/package.sh [OUTPUT_DIRECTORY]     (default: dist/ in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
repository=$(pwd)
out="${1:-$repository/dist}"
mkdir -p "$out"
out=$(cd "$out" && pwd)

gdb_distribution=gdb-adapter/target/jompd      # bin/jompd, bin/jompd-recorder, gdb/jompd.py, lib, recorder, scripts
dap_distribution=dap-server/target/jompd-dap    # bin/jompd-dap, lib
if [ ! -x "$gdb_distribution/bin/jompd" ] || [ ! -x "$dap_distribution/bin/jompd-dap" ]; then
  jompd_select_java
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  jompd_log "building jompd (mvn install -DskipTests)"
  mvn -B -ntp -q install -DskipTests
fi
version=$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' pom.xml | head -1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
image="$work/jompd-$version"
mkdir -p "$image"
cp -a "$gdb_distribution"/. "$image"/
cp -a "$dap_distribution"/bin/. "$image"/bin/
cp -an "$dap_distribution"/lib/. "$image"/lib/   # the jars both share are the same artifacts
bash scripts/jlink-runtime.sh "$image/runtime"
cat > "$image/README" <<README
jompd $version: OpenMP debugging (OMPD) for LLVM's libomp, with its own Java runtime (runtime/).
  bin/jompd inspect --core FILE | --pid PID      the OpenMP picture of a core or a running process
  bin/jompd diagnose --core FILE | --pid PID     why the threads wait
  bin/jompd run PROGRAM ARGS...                  run a gcc/gfortran OpenMP program on an OMPD-enabled libomp
  gdb -ex 'source DIR/gdb/jompd.py'              the ompd commands in gdb (DIR: where this README is; the .deb loads them in every gdb)
  lldb -o 'command script import DIR/lldb/jompd_lldb.py'   the ompd commands in LLDB (threads, diagnose, parallel, ...)
  bin/jompd-dap --stdio                          the Debug Adapter Protocol server (VS Code: the jompd extension)
README

tarball="$out/jompd-$version-linux-x64.tar.gz"
tar -C "$work" --owner=0 --group=0 -czf "$tarball" "jompd-$version"

# The .deb: the same image under /opt/jompd, commands on PATH, gdb's system init directory sources the bridge.
deb_version=${version//-/\~}
package="$work/deb"
mkdir -p "$package/DEBIAN" "$package/opt" "$package/usr/bin" "$package/etc/gdb/gdbinit.d"
cp -a "$image" "$package/opt/jompd"
for command in jompd jompd-dap jompd-recorder; do ln -s "/opt/jompd/bin/$command" "$package/usr/bin/$command"; done
cat > "$package/etc/gdb/gdbinit.d/jompd.py" <<'PY'
# jompd (package jompd): OpenMP commands in every gdb session ("ompd help"). The engine starts only when an
# ompd command is first used, on jompd's own Java runtime.
import gdb
gdb.execute("source /opt/jompd/gdb/jompd.py")
PY
installed_kb=$(du -sk "$package" | cut -f1)
cat > "$package/DEBIAN/control" <<CONTROL
Package: jompd
Version: $deb_version
Architecture: amd64
Maintainer: jompd developers <jompd@localhost>
Installed-Size: $installed_kb
Depends: libc6 (>= 2.31)
Recommends: gdb
Suggests: clang, gcc
Section: devel
Priority: optional
Description: OpenMP debugging (OMPD) for LLVM's libomp
 Shows what an OpenMP program is doing (teams, threads, tasks, ICVs, where
 threads wait and why) from a core file, a running process or inside gdb,
 and serves VS Code through the Debug Adapter Protocol. Carries its own Java
 runtime: no JDK is needed.
CONTROL
# not a conffile: `apt remove` takes it away with the rest (it only sources the installed bridge)
deb="$out/jompd_${deb_version}_amd64.deb"
dpkg-deb --root-owner-group -Zgzip --build "$package" "$deb" >/dev/null
echo "$tarball"
echo "$deb"
