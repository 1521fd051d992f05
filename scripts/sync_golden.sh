#!/bin/sh
# Re-syncs tests/golden/ from the shared reference cases (../shared/golden and
# ../shared/traces), so the suite needs nothing outside the repository.
# cases.json is copied with its trace paths pointed at tests/golden/traces.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${1:-$top/../shared}
dst=$top/tests/golden
[ -f "$shared/golden/cases.json" ] || { echo "sync_golden: no $shared/golden/cases.json" >&2; exit 1; }
find "$dst" -maxdepth 1 -type f -delete
cp "$shared"/golden/* "$dst"/
[ -d "$dst/traces" ] && chmod -R u+w "$dst/traces"
rm -rf "$dst/traces"
cp -r "$shared/traces" "$dst/traces"
chmod -R u+w "$dst/traces"
sed 's#"\.\./traces/#"traces/#g' "$shared/golden/cases.json" > "$dst/cases.json"
echo "tests/golden: $(ls "$dst" | wc -l) entries, $(grep -c '"id"' "$dst/cases.json") cases"
