#!/bin/sh
# t-install.sh -- an installed Tessera finds its backends beside its own library, never in
# the build tree: `make install prefix=TMP`, then the installed tessera, run with an empty
# environment (only LD_LIBRARY_PATH, for the dynamic loader), loads omp from
# TMP/lib/tessera; a copy of the installation moved elsewhere (as a DESTDIR staging is)
# loads the copy's omp; a backend that is not found is not searched for in the build tree.
top_srcdir=$(cd "${top_srcdir:-${srcdir:-.}}" && pwd)
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd -P)
work=$(mktemp -d) || exit 1
work=$(cd "$work" && pwd -P)
trap 'rm -rf "$work"' EXIT
failed=0 n=0
# installed PREFIX ARGS...: run PREFIX/bin/tessera with an empty environment into $work/out
installed() {
  prefix=$1
  shift
  env -i LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/tessera" "$@" >"$work/out" 2>&1
}
# check DESCRIPTION: the result of the last command as test n+1, then $work/out as comments
check() {
  st=$? n=$((n + 1))
  if [ $st -eq 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=1; fi
  sed 's/^/# /' "$work/out"
}
echo "1..4"

${MAKE:-make} -C "$builddir" install prefix="$work/prefix" >"$work/out" 2>&1
check "make install prefix=TMP"

installed "$work/prefix" info
grep -q "loaded from $work/prefix/lib/tessera/tessera_omp.so" "$work/out"
check "the installed tessera loads omp from TMP/lib/tessera"

cp -R "$work/prefix" "$work/moved"
installed "$work/moved" info
grep -q "loaded from $work/moved/lib/tessera/tessera_omp.so" "$work/out"
check "a moved copy loads its own omp"

cp "$top_srcdir/examples/poisson-2d.xml" "$work/p.xml"
installed "$work/prefix" run "$work/p.xml" --backend nosuch
grep -q "searched $work/prefix/lib/tessera/tessera_nosuch.so" "$work/out" && ! grep -q "$builddir" "$work/out"
check "a backend that is not found is searched beside the library, not in the build tree"
exit $failed
