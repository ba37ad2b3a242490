// Package controller is artt-traffic: the co-process that measures the
// cluster, runs a traffic policy (package allocate, ARTT by default) and
// writes the result to Istio as DestinationRule
// trafficPolicy.loadBalancer.localityLbSetting.distribute, one locality per
// node. It is an adapter: Kubernetes through controller-runtime,
// measurements from Prometheus, Istio through its client-go; the decisions
// are the pure core's.
//
// What it manages: Deployments labelled traffic.artt.dev/managed=true. Each
// is a component; its pods are its replicas; its Service host is
// <name>.<namespace>.svc.cluster.local unless the annotation
// traffic.artt.dev/host names another. Calls between managed Deployments
// (from Istio's request metrics) form the call graph; each called Deployment
// gets node-to-node weights for traffic from its managed callers.
//
// When it acts: every cycle (--interval, 30 s) it queries Prometheus once
// and reallocates; between cycles a pod deleted or turning unready, a new pod
// turning ready (warm start), or a node going NotReady reallocates at once
// with the last measurements. If Prometheus fails, the cycle keeps the last
// routing and says so in its metrics and logs.
//
// How it writes: server-side apply with its own field manager
// ("artt-traffic"), owning only localityLbSetting. If a DestinationRule for
// the host already exists (a user's), ARTT applies into it and every other
// field stays the user's; otherwise it creates artt-<deployment>. A field
// another manager owns is a conflict: reported in logs and metrics, never
// forced, and tried again next cycle. Every rule is checked against istiod's
// own validation rules first (package istio), and a write whose content did
// not change is skipped.
package controller
