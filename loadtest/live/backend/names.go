package backend

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc/metadata"
)

// Port is the gRPC port every pod serves on; MetricsPort serves /metrics.
const (
	Port        = 7070
	MetricsPort = 9090
)

// Method is the one RPC a backend serves.
const Method = "/artt.live.Backend/Call"

// Metadata keys a caller sends: its node, for the network delay; its
// workload, for the metrics' source labels; and the call's key, its path
// from the root (workload.RootKey, workload.ChildKey), which its draws
// come from.
const (
	CallerNodeKey     = "x-artt-caller-node"
	CallerWorkloadKey = "x-artt-caller-workload"
	CallKeyKey        = "x-artt-call-key"
)

// FormatCallKey is a call's key as its metadata value.
func FormatCallKey(key uint64) string { return strconv.FormatUint(key, 16) }

// CallKey reads the call's key from a request's metadata.
func CallKey(md metadata.MD) (uint64, error) {
	v := md.Get(CallKeyKey)
	if len(v) == 0 {
		return 0, fmt.Errorf("metadata %s: missing; every caller names its call", CallKeyKey)
	}
	key, err := strconv.ParseUint(v[0], 16, 64)
	if err != nil {
		return 0, fmt.Errorf("metadata %s = %q: not a hexadecimal call key", CallKeyKey, v[0])
	}
	return key, nil
}

// ObjectName is a scenario component's name as a Kubernetes object's: the
// scenario's names may carry capitals (LATA's A to E), DNS labels may not.
func ObjectName(component string) string { return strings.ToLower(component) }

// Host is a component's Service as a gRPC xDS target names it.
func Host(namespace, component string) string {
	return ObjectName(component) + "." + namespace + ".svc.cluster.local"
}
