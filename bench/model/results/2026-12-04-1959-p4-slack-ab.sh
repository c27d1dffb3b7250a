#!/bin/sh
cd /work/main
for pair in 1 2 3; do
  for m in 0 1; do
    echo "=== pair $pair slack $m $(date -u +%H:%M:%S)"
    python3 bench/model/validate_model.py --ranks 4 --graphs vit_b_16-host gpt-small-host \
      --policies ddp optimal --in-flight 1 2 0 --rounds 5 \
      --link-params bench/model/results/host-calibration-p4-1846.json \
      --optimal-pipeline slack-margin=$m --json /tmp/ab4/p$pair-m$m.json > /tmp/ab4/p$pair-m$m.txt 2>&1
    echo "rc $?"
  done
done
echo DONE $(date -u +%H:%M:%S)
