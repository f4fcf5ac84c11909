#!/usr/bin/env bash
# Compares delayq's drain and steady figures at two git revisions on this machine, alternating
# quick benchmark runs of each (old, new, old, new, ...) so that both meet the same machine load.
#
#   delayq-bench/scripts/compare-versions.sh OLD_REV [NEW_REV] [ROUNDS]
#
# NEW_REV defaults to the working tree as built (delayq-bench/target/delayq-bench.jar), ROUNDS to 3.
# Prints a Markdown table: one row per run, then the medians and new/old ratios.
set -euo pipefail
old_rev=${1:?usage: compare-versions.sh OLD_REV [NEW_REV] [ROUNDS]}
new_rev=${2:-}
rounds=${3:-3}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; git -C "$root" worktree remove --force "$work/new" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

build() { # rev dir -> path of the bench jar
  git -C "$root" worktree add --detach -f "$2" "$1" >/dev/null 2>&1
  (cd "$2" && mvn -q -B -DskipTests package >&2)
  echo "$2/delayq-bench/target/delayq-bench.jar"
}
old_jar=$(build "$old_rev" "$work/old")
if [[ -n "$new_rev" ]]; then new_jar=$(build "$new_rev" "$work/new"); else new_jar="$root/delayq-bench/target/delayq-bench.jar"; fi
new_label=${new_rev:-"working tree ($(git -C "$root" rev-parse --short HEAD))"}

# Pulls the delayq rows of the drain and steady tables out of a report: jobs/s, p99, p99.9, max, commands/job.
figures() {
  awk -F'|' '
    /^## /{section=$0}
    section=="## Drain" && $2 ~ /^ delayq $/ {drain=$4}
    section=="## Steady" && $2 ~ /^ delayq $/ {p99=$6; p999=$7; max=$8; cmds=$10}
    END {gsub(/[ ,]/,"",drain); gsub(/ /,"",p99); gsub(/ /,"",p999); gsub(/ /,"",max); gsub(/ /,"",cmds);
         print drain, p99, p999, max, cmds}' "$1"
}

echo "| run | version | drain jobs/s | steady p99 ms | steady p99.9 ms | steady max ms | commands/job |"
echo "|---|---|---:|---:|---:|---:|---:|"
: > "$work/old.txt"; : > "$work/new.txt"
for ((i = 1; i <= rounds; i++)); do
  for side in old new; do
    jar=$old_jar; label=$old_rev
    if [[ $side == new ]]; then jar=$new_jar; label=$new_label; fi
    out="$work/$side-$i"
    (cd "$(dirname "$jar")/../.." && java -jar "$jar" --quick --out="$out" >"$out.log" 2>&1) || true
    read -r drain p99 p999 max cmds < <(figures "$out/BENCHMARKS.md")
    echo "$drain $p99 $p999 $max $cmds" >> "$work/$side.txt"
    echo "| $i | $label | $drain | $p99 | $p999 | $max | $cmds |"
  done
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for col in 1 2 3 4 5; do
  o[$col]=$(awk -v c=$col '{print $c}' "$work/old.txt" | median)
  n[$col]=$(awk -v c=$col '{print $c}' "$work/new.txt" | median)
done
echo "| median | $old_rev | ${o[1]} | ${o[2]} | ${o[3]} | ${o[4]} | ${o[5]} |"
echo "| median | $new_label | ${n[1]} | ${n[2]} | ${n[3]} | ${n[4]} | ${n[5]} |"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (a > 0 ? b / a : 0)}'; }
echo "| new / old | | $(ratio "${o[1]}" "${n[1]}") | $(ratio "${o[2]}" "${n[2]}") | $(ratio "${o[3]}" "${n[3]}") | $(ratio "${o[4]}" "${n[4]}") | $(ratio "${o[5]}" "${n[5]}") |"
