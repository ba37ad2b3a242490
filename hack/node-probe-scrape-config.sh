#!/usr/bin/env bash
# Prints Prometheus scrape jobs that measure node-to-node delay for
# artt-traffic: for every node, one job scraping that node's blackbox
# exporter (deploy/examples/node-probes, port 9115) with every other node's
# kubelet port as target. Labels: job="artt-node-probe", source_node,
# target_node. Re-run it when nodes change. Needs kubectl.
set -euo pipefail
mapfile -t nodes < <(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}')
echo "scrape_configs:"
for src in "${nodes[@]}"; do
  read -r sname sip <<<"$src"
  cat <<YAML
  - job_name: artt-node-probe-${sname}
    metrics_path: /probe
    params: {module: [tcp_kubelet]}
    scrape_interval: 15s
    static_configs:
YAML
  for dst in "${nodes[@]}"; do
    read -r dname dip <<<"$dst"
    [ "$dname" = "$sname" ] && continue
    cat <<YAML
      - targets: ["${dip}:10250"]
        labels: {source_node: "${sname}", target_node: "${dname}"}
YAML
  done
  cat <<YAML
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - target_label: __address__
        replacement: "${sip}:9115"
      - target_label: job
        replacement: artt-node-probe
YAML
done
