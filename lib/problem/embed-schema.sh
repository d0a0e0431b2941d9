#!/bin/sh
# embed-schema.sh IN OUT -- write a C file that holds the bytes of the schema IN as
#   const char ts_problem_schema_xsd[]      (NUL-terminated)
#   const size_t ts_problem_schema_xsd_len  (bytes, without the NUL)
# so that libtessera validates problem files without looking for the schema on disk.
# POSIX sh, od and awk only.  Every byte is written as a character constant with a
# three-digit octal escape ('\074'): portable whatever the signedness of char, whatever
# bytes the schema holds, and free of the 4095-character limit on string literals.
set -e

if [ "$#" -ne 2 ]; then
  echo "usage: $0 IN OUT" >&2
  exit 2
fi
in=$1
out=$2
if [ ! -r "$in" ]; then
  echo "$0: cannot read '$in'" >&2
  exit 1
fi

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
trap 'rm -f "$tmp"; exit 1' HUP INT TERM

name=$(basename "$in")
{
  echo "/* Generated from $name by embed-schema.sh: do not edit. */"
  echo '#include <stddef.h>'
  echo ''
  echo 'extern const char ts_problem_schema_xsd[];'
  echo 'extern const size_t ts_problem_schema_xsd_len;'
  echo ''
  echo 'const char ts_problem_schema_xsd[] = {'
  od -An -v -to1 "$in" | awk '
    { for (i = 1; i <= NF; i++) {
        printf "%s'"'"'\\%s'"'"',", (n % 12 == 0 ? (n ? "\n  " : "  ") : " "), $i
        n++
      } }
    END {
      printf "%s0\n};\n", (n ? "\n  " : "  ")
      printf "const size_t ts_problem_schema_xsd_len = %d;\n", n
    }'
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
