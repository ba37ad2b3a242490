// Package outcome holds what a run of ARTT's load measured: its latencies,
// losses, utilisation and replicas over time, the routing tables in force
// and what each injected event cost. artt-lab's emulator fills them, the
// live loop fills them from a real run, and the report reads either.
package outcome
