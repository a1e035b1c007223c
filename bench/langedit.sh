#!/usr/bin/env bash
# Edit to settled diagnostics in `fixloop serve`, per language: fixloop with
# its warm tools (python.tools, cpp.tools, java.tools: warm) against the
# cold design (the same settings: cold), one server each, edits alternated
# (bench/lspbench -langs). On the bundled examples and on one real project
# per language from Debian:
#   - Python: python3-requests (requests/sessions.py), the binary package;
#   - C++: tinyxml2's source (tinyxml2.cpp), with a compile_commands.json;
#   - Java: commons-lang3's source, a Maven module (BooleanUtils.java).
# The goals (issue 29): warm/cold at most 0.3 on the examples, 0.5 on the
# real projects, and the tools' peak RSS at most 300 MB per language.
#
# Debian's sources need a deb-src entry: this script adds one (as root)
# when apt-get cannot find them.
#
#   bench/langedit.sh          # N=11
#   N=21 bench/langedit.sh
#   ONLY=examples bench/langedit.sh
#   LANG_ONLY=cpp bench/langedit.sh   # one language's files
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
N="${N:-11}"
src="${FIXLOOP_BENCH_SRC:-$HOME/.cache/fixloop-bench/src}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/fixloop" .
go build -o "$work/lspbench" ./bench/lspbench

# The examples, copied: the servers must not see each other's files.
cp -r testdata/pyexample "$work/py"
cp -r testdata/cppexample "$work/cc"
cp -r testdata/javaexample "$work/java"
files="py-example=python:$work/py:stats.py"
files+=",cpp-example=cpp:$work/cc:stats.cc"
files+=",java-example=java:$work/java:src/main/java/example/Stats.java"

fetch_real() {
  mkdir -p "$src"
  cd "$src"
  if ! ls tinyxml2_*.orig.tar.* >/dev/null 2>&1 || ! ls libcommons-lang3-java_*.orig.tar.* >/dev/null 2>&1; then
    if ! apt-get source --download-only tinyxml2 >/dev/null 2>&1; then
      cat > /etc/apt/sources.list.d/fixloop-bench-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
      apt-get update -qq
      apt-get source --download-only tinyxml2 >/dev/null 2>&1
    fi
    apt-get source --download-only libcommons-lang3-java >/dev/null 2>&1
  fi
  ls python3-requests_*.deb >/dev/null 2>&1 || apt-get download python3-requests >/dev/null 2>&1
  cd "$repo"
}

if [ "${ONLY:-}" != examples ]; then
  fetch_real
  mkdir -p "$work/real"
  for f in "$src"/tinyxml2_*.orig.tar.* "$src"/libcommons-lang3-java_*.orig.tar.*; do
    tar -C "$work/real" -xf "$f"
  done
  dpkg-deb -x "$src"/python3-requests_*.deb "$work/real/pyreq"
  txml=$(echo "$work"/real/tinyxml2-*)
  lang3=$(echo "$work"/real/commons-lang-*)
  cat > "$txml/compile_commands.json" <<EOF
[{"directory": "$txml", "file": "$txml/tinyxml2.cpp", "arguments": ["g++", "-std=c++11", "-I$txml", "-c", "tinyxml2.cpp", "-o", "tinyxml2.o"]}]
EOF
  files+=",requests=python:$work/real/pyreq/usr/lib/python3/dist-packages:requests/sessions.py"
  files+=",tinyxml2=cpp:$txml:tinyxml2.cpp"
  files+=",commons-lang3=java:$lang3:src/main/java/org/apache/commons/lang3/BooleanUtils.java"
fi

# LANG_ONLY=cpp (or python, java) keeps that language's files only.
if [ -n "${LANG_ONLY:-}" ]; then
  files=$(tr ',' '\n' <<<"$files" | grep "=$LANG_ONLY:" | paste -sd, -)
fi

# pyright and PMD too: every tool that has a warm design.
settings='{"python": {"linters": ["pylint", "flake8", "pyright"]}, "java": {"pmd": true}}'
"$work/lspbench" -fixloop "$work/fixloop" -n "$N" -langs "$files" -lang-settings "$settings" ${OUT:+-out "$OUT"}
