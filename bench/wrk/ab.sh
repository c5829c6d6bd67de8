#!/bin/bash
# Interleaved wrk A/B of servers already running on local ports (docs/pending/ops.md): for each round,
# each server in turn gets `wrk -t2 -c16 -dSECONDS` over the request paths of URLFILE (bench/wrk/urls.lua
# cycles through them); printed per run: round, label, requests/s, the server process's user+sys CPU
# microseconds per request (/proc/PID/stat, PID of the listener on the port), then user and sys apart,
# wrk's non-2xx/socket errors.
# Run from bench/wrk: ./ab.sh ../.work/stopkeys.txt 4 5 new:18401 old:18402
# usage: ab.sh URLFILE SECONDS ROUNDS label:port ...
# one line per run: round, label, requests/s, server CPU µs per request (user+sys from /proc), user, sys, non-2xx
f=$1; s=$2; r=$3; shift 3
cpu() { awk '{print $14, $15}' /proc/$1/stat; }
for k in $(seq $r); do for lp in "$@"; do l=${lp%%:*}; p=${lp##*:}
  pid=$(ss -ltnpH "sport = :$p" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  read u0 s0 < <(cpu $pid)
  out=$(URLS=$f wrk -t2 -c16 -d${s}s -s urls.lua http://127.0.0.1:$p 2>&1)
  read u1 s1 < <(cpu $pid)
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}'); n=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$k $l $rps $(awk -v u=$((u1-u0)) -v s=$((s1-s0)) -v n=$n 'BEGIN {printf "%.1f %.1f %.1f", (u+s)*10000/n, u*10000/n, s*10000/n}') $(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ')"
done; done
