package live

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// HPAStatus is one status of an HPA as the harness saw it change.
type HPAStatus struct {
	At       time.Time
	HPA      string
	Current  int32
	Desired  int32
	Value    float64 // the metric's value the HPA read (NaN before any)
	Target   float64 // its target, per pod for an AverageValue metric
	PerPod   bool
	ScaledAt time.Time // status.lastScaleTime
}

// stageWatch records what an autoscaled run shows only as it happens:
// each status its HPAs write, when each pod is first listed ready in an
// EndpointSlice, and each time an address turns Healthy in istiod's
// endpoint index (a scaled component's pods reuse their slots' addresses,
// so an address's first time is only its first pod's). It polls every
// 250 ms, a small load beside the run's.
type stageWatch struct {
	c      *Cluster
	ns     string
	hpas   []string
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	statuses []HPAStatus
	inSlice  map[string]time.Time   // by pod name
	inIstiod map[string][]time.Time // by address: each time it turned Healthy
	healthy  map[string]bool        // the addresses Healthy at the last look
	err      error
}

const stageWatchPeriod = 250 * time.Millisecond

func startStageWatch(ctx context.Context, c *Cluster, ns string, hpas []string) *stageWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &stageWatch{c: c, ns: ns, hpas: hpas, cancel: cancel, done: make(chan struct{}),
		inSlice: map[string]time.Time{}, inIstiod: map[string][]time.Time{}, healthy: map[string]bool{}}
	go func() {
		defer close(w.done)
		for {
			w.look(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(stageWatchPeriod):
			}
		}
	}()
	return w
}

// stop ends the watch and returns its first error.
func (w *stageWatch) stop() error {
	w.cancel()
	<-w.done
	return w.err
}

func (w *stageWatch) look(ctx context.Context) {
	now := time.Now()
	for _, name := range w.hpas {
		var hpa autoscalingv2.HorizontalPodAutoscaler
		if err := w.c.Client.Get(ctx, client.ObjectKey{Namespace: w.ns, Name: name}, &hpa); err != nil {
			w.fail(ctx, fmt.Errorf("hpa %s: %w", name, err))
			continue
		}
		w.sawHPA(hpaStatus(now, &hpa))
	}
	var list discoveryv1.EndpointSliceList
	if err := w.c.Client.List(ctx, &list, client.InNamespace(w.ns)); err != nil {
		w.fail(ctx, fmt.Errorf("endpoint slices: %w", err))
	}
	for _, s := range list.Items {
		for _, e := range s.Endpoints {
			if e.TargetRef != nil && e.Conditions.Ready != nil && *e.Conditions.Ready {
				w.first(w.inSlice, e.TargetRef.Name, now)
			}
		}
	}
	addrs, err := istiodHealthy(ctx, w.c.Istiod.HTTPAddr)
	if err != nil {
		w.fail(ctx, err)
		return
	}
	w.sawHealthy(addrs, now)
}

// sawHealthy notes each address that turned Healthy since the last look.
func (w *stageWatch) sawHealthy(addrs []string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		if !w.healthy[a] && !now[a] {
			w.inIstiod[a] = append(w.inIstiod[a], at)
		}
		now[a] = true
	}
	w.healthy = now
}

// turnedHealthy is when address first turned Healthy in istiod at or
// after since: for a pod, since its start. Zero when it did not, as for a
// pod whose slot's previous pod istiod still listed when it started.
func (w *stageWatch) turnedHealthy(address string, since time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, at := range w.inIstiod[address] {
		if !at.Before(since) {
			return at
		}
	}
	return time.Time{}
}

// hpaStatus reads the status of an HPA with one external metric.
func hpaStatus(at time.Time, hpa *autoscalingv2.HorizontalPodAutoscaler) HPAStatus {
	s := HPAStatus{At: at, HPA: hpa.Name, Current: hpa.Status.CurrentReplicas, Desired: hpa.Status.DesiredReplicas, Value: math.NaN()}
	if hpa.Status.LastScaleTime != nil {
		s.ScaledAt = hpa.Status.LastScaleTime.Time
	}
	if len(hpa.Spec.Metrics) > 0 && hpa.Spec.Metrics[0].External != nil {
		t := hpa.Spec.Metrics[0].External.Target
		s.PerPod = t.AverageValue != nil
		if s.PerPod {
			s.Target = t.AverageValue.AsApproximateFloat64()
		} else if t.Value != nil {
			s.Target = t.Value.AsApproximateFloat64()
		}
	}
	for _, m := range hpa.Status.CurrentMetrics {
		if m.External == nil {
			continue
		}
		if v := m.External.Current.AverageValue; v != nil {
			s.Value = v.AsApproximateFloat64()
		} else if v := m.External.Current.Value; v != nil {
			s.Value = v.AsApproximateFloat64()
		}
	}
	return s
}

// sawHPA keeps a status that differs from the HPA's last one.
func (w *stageWatch) sawHPA(s HPAStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.statuses) - 1; i >= 0; i-- {
		if last := w.statuses[i]; last.HPA == s.HPA {
			if last.Current == s.Current && last.Desired == s.Desired && last.ScaledAt.Equal(s.ScaledAt) &&
				(last.Value == s.Value || math.IsNaN(last.Value) && math.IsNaN(s.Value)) {
				return
			}
			break
		}
	}
	w.statuses = append(w.statuses, s)
}

func (w *stageWatch) first(m map[string]time.Time, key string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := m[key]; !seen {
		m[key] = at
	}
}

func (w *stageWatch) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// istiodHealthy is every address istiod's endpoint index holds as
// Healthy (its /debug/endpointz page: services, their shards, and each
// endpoint's Addresses and HealthStatus, 1 for Healthy).
func istiodHealthy(ctx context.Context, httpAddr string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+httpAddr+"/debug/endpointz", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("istiod's endpoint index: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("istiod's endpoint index: %s", resp.Status)
	}
	var doc any
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("istiod's endpoint index: %w", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if addrs, ok := v["Addresses"].([]any); ok && v["HealthStatus"] == float64(1) {
				for _, a := range addrs {
					if s, ok := a.(string); ok {
						out = append(out, s)
					}
				}
				return
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return out, nil
}
