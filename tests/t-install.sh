#!/bin/sh
# t-install.sh -- installing from the build tree: `make install prefix=DIR` (the prefix given
# to make, not to configure) puts the library, the headers, the omp backend module, the
# schema, the man page and a tessera.pc for DIR under DIR; a program built with the
# README's line `cc ex-poisson.c $(pkg-config --cflags --libs tessera) -lm` and the
# installed `tessera` start and solve with LD_LIBRARY_PATH and TESSERA_BACKEND_PATH unset,
# from a folder outside the build tree, loading the installed libtessera.  Then
# `make install DESTDIR=STAGE` stages the configured prefix under STAGE, with a tessera.pc
# that names the prefix (not STAGE) and a tessera that runs from the stage.  The installed
# tessera finds its backends beside its own library (DIR/lib/tessera), a copy moved elsewhere
# its own, and never searches the build tree.
top_srcdir=$(cd "${top_srcdir:-${srcdir:-.}}" && pwd)
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd)
make=${MAKE:-make}
cc=${TESSERA_CC:-cc}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
stage=$work/stage
n=0
ok() { # ok STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
show() { sed 's/^/# /' "$1" | tail -${2:-20}; }
# clean_env COMMAND...: run with the search paths of a user's shell, not make check's
clean_env() { env -u LD_LIBRARY_PATH -u TESSERA_BACKEND_PATH "$@"; }
# the make of the build tree, started afresh (the job server of the make running this test
# is not ours)
install_tree() { (cd "$builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $make install "$@"); }
echo "1..23"

install_tree prefix="$prefix" >"$work/install.log" 2>&1
st=$?; [ $st -eq 0 ] || show "$work/install.log"
ok $st "make install prefix=$prefix"
for f in bin/tessera lib/libtessera.so include/tessera.h include/tessera/backend.h \
         lib/tessera/tessera_omp.so share/tessera/tessera-problem.xsd \
         share/man/man1/tessera.1 lib/pkgconfig/tessera.pc; do
  [ -e "$prefix/$f" ]; ok $? "installed $f"
done

pc() { PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config "$@" tessera; }
[ "$(pc --variable=prefix)" = "$prefix" ] && [ "$(pc --variable=libdir)" = "$prefix/lib" ] &&
  [ "$(pc --variable=backenddir)" = "$prefix/lib/tessera" ] && pc --libs | grep -qF -- "-Wl,-rpath,$prefix/lib"
ok $? "tessera.pc names the prefix of make install ($(pc --variable=prefix)), with a run path to its libdir"

# the README's line, with the compiler (and flags) the library was built with
cd "$work" || exit 1
$cc "$top_srcdir/examples/ex-poisson.c" $(pc --cflags --libs) -lm -o ex-poisson >"$work/cc.log" 2>&1
st=$?; [ $st -eq 0 ] || show "$work/cc.log"
ok $st "ex-poisson.c builds with pkg-config --cflags --libs tessera"
# loads_installed_library PROGRAM: the dynamic loader resolves libtessera in $prefix/lib
# (the path it prints may be $prefix/bin/../lib)
loads_installed_library() {
  clean_env LD_TRACE_LOADED_OBJECTS=1 "$1" 2>&1 | grep 'libtessera' >"$work/ldd"
  show "$work/ldd" 3
  found=$(sed -n 's/.*=> \(.*\)\/libtessera\.so.*/\1/p' "$work/ldd")
  [ -n "$found" ] && [ "$(cd "$found" && pwd -P)" = "$(cd "$prefix/lib" && pwd -P)" ]
}
loads_installed_library ./ex-poisson; ok $? "ex-poisson loads $prefix/lib/libtessera.so"
clean_env ./ex-poisson 2 3 >"$work/ex.out" 2>&1
st=$?; show "$work/ex.out" 4
[ $st -eq 0 ] && tail -1 "$work/ex.out" | grep -q "rates"
ok $? "ex-poisson runs from $work with LD_LIBRARY_PATH and TESSERA_BACKEND_PATH unset"

loads_installed_library "$prefix/bin/tessera"; ok $? "the installed tessera loads $prefix/lib/libtessera.so"
clean_env "$prefix/bin/tessera" info >"$work/info" 2>&1
st=$?; show "$work/info"
[ $st -eq 0 ] && grep -q '^  omp ' "$work/info"
ok $? "the installed tessera info finds the omp backend"
grep -qF "loaded from $prefix/lib/tessera/tessera_omp.so" "$work/info"
ok $? "tessera info names the installed module $prefix/lib/tessera/tessera_omp.so"
# hypre: a static link needs it (and MPI), so tessera.pc's Libs.private names it when the
# installed tessera was built with it
if grep -q '^features: hypre [0-9]' "$work/info"; then
  pc --static --libs | grep -q -- '-lHYPRE'
  ok $? "tessera info lists hypre, and tessera.pc's Libs.private names -lHYPRE: $(pc --static --libs)"
else
  grep -q '^features: hypre: no' "$work/info"
  ok $? "tessera info says it was built without hypre"
fi
clean_env "$prefix/bin/tessera" run "$top_srcdir/examples/poisson-2d.xml" >"$work/run" 2>&1
st=$?; show "$work/run" 8
[ $st -eq 0 ] && grep -q "L2 error" "$work/run"
ok $? "the installed tessera solves examples/poisson-2d.xml"

cp -R "$prefix" "$work/moved"
clean_env "$work/moved/bin/tessera" info >"$work/moved.info" 2>&1
show "$work/moved.info" 6
grep -qF "loaded from $work/moved/lib/tessera/tessera_omp.so" "$work/moved.info"
ok $? "a copy of the installation moved elsewhere loads its own omp"
clean_env "$prefix/bin/tessera" run "$top_srcdir/examples/poisson-2d.xml" --backend nosuch >"$work/nosuch" 2>&1
show "$work/nosuch" 4
grep -qF "searched $prefix/lib/tessera/tessera_nosuch.so" "$work/nosuch" && ! grep -qF "$builddir" "$work/nosuch"
ok $? "a backend that is not found is searched beside the library, not in the build tree"

configured=$(sed -n 's/^prefix = //p' "$builddir/Makefile")
install_tree DESTDIR="$stage" >"$work/stage.log" 2>&1
st=$?; [ $st -eq 0 ] || show "$work/stage.log"
ok $st "make install DESTDIR=$stage"
staged_pc=$stage$configured/lib/pkgconfig/tessera.pc
grep -qx "prefix=$configured" "$staged_pc" && ! grep -qF "$stage" "$staged_pc"
ok $? "the staged tessera.pc names the configured prefix $configured, not the stage"
clean_env "$stage$configured/bin/tessera" --version >"$work/staged" 2>&1
st=$?; show "$work/staged" 3
ok $st "the staged tessera runs from the stage"
