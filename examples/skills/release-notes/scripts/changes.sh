#!/usr/bin/env sh
# Lists commit subjects since the given tag (or the whole history when none is given).
set -eu
if [ "$#" -gt 0 ]; then git log --no-merges --format='- %s' "$1..HEAD"; else git log --no-merges --format='- %s'; fi
