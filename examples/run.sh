#!/bin/sh
# mdclaim run as the polling trigger: two commands at a time over a copy of
# the sample board, until nothing on it could still be claimed. Tasks tagged
# {docs} fail (there is no docs tool here), so the [⏰] below them settles.
#
#   sh examples/run.sh                        (from a clone, after npm run build)
#   sh node_modules/mdclaim/examples/run.sh   (where mdclaim is installed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mdclaim=${MDCLAIM:-"node $here/../bin/mdclaim.cjs"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$here/tasks.md" "$dir/tasks.md"

# The variables are the command's: quote them for its shell (single quotes here).
$mdclaim run --file "$dir/tasks.md" --until-settled --concurrency 2 --interval 1s --lease 10s --events "$dir/events.jsonl" -- sh -c '
  echo "working on $MDCLAIM_TASK_ID: $MDCLAIM_TASK_TEXT"
  sleep 1
  case ",$MDCLAIM_TASK_TAGS," in *,docs,*) echo "no docs tool on this machine" >&2; exit 1 ;; esac
' || echo "run exited $?: a task failed (the {docs} ones here); 0 means every task it ran is done"
echo
$mdclaim list --file "$dir/tasks.md"
echo
echo "$(wc -l < "$dir/events.jsonl") events in --events, the last: $(tail -n 1 "$dir/events.jsonl")"
