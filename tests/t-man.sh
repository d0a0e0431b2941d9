#!/bin/sh
# t-man.sh -- the man page tessera(1) (doc/tessera.1, made by doc/make-man.sh) says what
# `tessera --help` and every `tessera COMMAND --help` say: each line of each help text is
# in the page (words and options the same, spacing aside), the page names the version
# `tessera --version` prints, and groff (where installed) reads it without a warning.
builddir=$(cd "${TESSERA_BUILDDIR:-.}" && pwd)
tessera="$builddir/src/tessera"
page="$builddir/doc/tessera.1"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
n=0
ok() { # ok STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
commands=$("$tessera" --help | awk '/^[a-z].*:$/ { section = $0; next }
  section == "commands:" && /^  [a-z]/ && $1 != "help" { print $1 }')
echo "1..$(( $(echo $commands | wc -w) + 4 ))"

[ -s "$page" ]; ok $? "the man page $page exists"
# the page as plain text: roff requests and font escapes removed, on one line
sed -e '/^\.\(TH\|TP\|PP\|br\|nh\|ad\|\\"\)/d' -e 's/^\.S[HS] //' -e 's/^"\(.*\)"$/\1/' \
    -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g' "$page" |
  tr -s ' \n' '  ' >"$work/text"

# help_in_page DESCRIPTION ARGS...: every line of `tessera ARGS` (without "usage: " and the
# "heading:" lines) occurs in the page's text
help_in_page() {
  what=$1
  shift
  "$tessera" "$@" >"$work/help" 2>&1
  missing=0
  while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^usage: //' | tr -s ' ' | sed 's/^ //; s/ $//')
    case $line in "" | [a-z]*:) continue ;; esac
    if ! grep -qF -- "$line" "$work/text"; then
      echo "# not in the man page: $line"
      missing=$((missing + 1))
    fi
  done <"$work/help"
  ok $missing "$what: every line of its help text is in the man page"
}
help_in_page "tessera --help" --help
for c in $commands; do help_in_page "tessera $c --help" "$c" --help; done

version=$("$tessera" --version)
grep -q "^\.TH TESSERA 1 .*\"$version\"" "$page"; ok $? "the page is of '$version'"
if command -v groff >/dev/null 2>&1; then
  groff -man -ww -z "$page" >"$work/warnings" 2>&1
  [ ! -s "$work/warnings" ]; ok $? "groff -man -ww reads the page without a warning"
  sed 's/^/# /' "$work/warnings"
else
  echo "ok $((n += 1)) # SKIP groff is not installed"
fi
