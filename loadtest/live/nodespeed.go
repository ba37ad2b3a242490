package live

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/artt-dev/artt/loadtest/live/backend"
)

// speedOf is a node's speed now if it was slowed mid-run, else 0 (the
// scenario's).
func (k *kubelet) speedOf(node string) float64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.speeds[node]
}

// setNodeSpeed slows or restores a node's CPU (node-slowdown): each of its
// pods running in namespace ns costs its requests' work divided by speed
// from now on, and pods started later start at it. Speed 0 gives the
// node back the scenario's speed, for the next run.
func (k *kubelet) setNodeSpeed(ctx context.Context, ns, node string, speed, scenarioSpeed float64) error {
	k.mu.Lock()
	if speed == 0 {
		delete(k.speeds, node)
	} else {
		k.speeds[node] = speed
	}
	var ips []string
	for _, p := range k.procs {
		select {
		case <-p.exited:
		default:
			if p.ns == ns && p.node == node && p.listening {
				ips = append(ips, p.ip)
			}
		}
	}
	k.mu.Unlock()
	for _, ip := range ips {
		if err := putSpeed(ctx, ip, cmp.Or(speed, scenarioSpeed)); err != nil {
			return fmt.Errorf("node %s: %w", node, err)
		}
	}
	return nil
}

// putSpeed gives a backend its node's speed (backend.SpeedPath).
func putSpeed(ctx context.Context, ip string, speed float64) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(ip, strconv.Itoa(backend.MetricsPort)) + backend.SpeedPath
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, strings.NewReader(strconv.FormatFloat(speed, 'g', -1, 64)))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("set speed: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("set speed at %s: %s", url, resp.Status)
	}
	return nil
}
