package backend

import "strings"

// Port is the gRPC port every pod serves on; MetricsPort serves /metrics.
const (
	Port        = 7070
	MetricsPort = 9090
)

// Method is the one RPC a backend serves.
const Method = "/artt.live.Backend/Call"

// Metadata keys a caller sends: its node, for the network delay, and its
// workload, for the metrics' source labels.
const (
	CallerNodeKey     = "x-artt-caller-node"
	CallerWorkloadKey = "x-artt-caller-workload"
)

// ObjectName is a scenario component's name as a Kubernetes object's: the
// scenario's names may carry capitals (LATA's A to E), DNS labels may not.
func ObjectName(component string) string { return strings.ToLower(component) }

// Host is a component's Service as a gRPC xDS target names it.
func Host(namespace, component string) string {
	return ObjectName(component) + "." + namespace + ".svc.cluster.local"
}
