#!/usr/bin/env bash
# Runs `npm start` as a new user would, sends requests with example hostnames, and stops exactly the
# processes it started (its own process group). Bounded: gives up after 90 s.
set -uo pipefail
log=$(mktemp)
setsid npm start >"$log" 2>&1 &
pid=$!
stop() { kill -INT -- "-$pid" 2>/dev/null; sleep 2; kill -KILL -- "-$pid" 2>/dev/null; }
trap stop EXIT

for _ in $(seq 1 90); do
  grep -q "kedge is serving" "$log" && break
  if ! kill -0 "$pid" 2>/dev/null; then cat "$log"; echo "npm start exited early"; exit 1; fi
  sleep 1
done
grep -q "kedge is serving" "$log" || { cat "$log"; echo "npm start did not get ready in 90 s"; exit 1; }

check() { # host path expected-substring
  body=$(curl -sS --max-time 10 -H "Host: $1" "http://127.0.0.1:8787$2")
  if [[ "$body" != *"$3"* ]]; then echo "GET $1$2: expected '$3' in: $body"; exit 1; fi
  echo "ok  GET $1$2 → ${body:0:90}"
}
spread() { # host path: the clusters that answered 80 requests (five clusters of weight 1: 30 requests miss one of the three checked about once in 270 runs; 80, once in 18 million)
  for _ in $(seq 1 80); do curl -sS --max-time 10 -H "Host: $1" "http://127.0.0.1:8787$2" | grep -o '"cluster":"[a-z-]*"'; done | sort -u | tr '\n' ' '
}
clusters=$(spread bookinfo.example.com /)
[[ "$clusters" == *us-east* && "$clusters" == *eu-west* && "$clusters" == *ap-southeast* ]] ||
  { echo "CompositeBackend productpage: expected all three clusters, got: $clusters"; exit 1; }
echo "ok  GET bookinfo.example.com/ (CompositeBackend) answered by $clusters"
clusters=$(spread store.example.com /)
[[ "$clusters" == *us-east* && "$clusters" == *eu-west* && "$clusters" == *ap-southeast* ]] ||
  { echo "store (the same manifests in every cluster): expected all three clusters, got: $clusters"; exit 1; }
echo "ok  GET store.example.com/ (identical manifests) answered by $clusters"
check ratings.bookinfo.example.com /partner/ping '"endpoint":"eu-west/localhost:'
check eu.bookinfo.example.com / '"cluster":"eu-west"'
check ap.bookinfo.example.com /details '"cluster":"ap-southeast"'
check nowhere.example.org / '"error":"ROUTE_NOT_FOUND"'
echo "npm start smoke test passed"
