package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/artt-dev/artt/loadtest/live/backend"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Pipeline is what an autoscaled run's pipeline did, as the harness
// recorded it, for the timeline of each step (Timeline).
type Pipeline struct {
	// HPA is every status change of the run's HPAs.
	HPA []HPAStatus
	// InSlice, InIstiod and FirstArrival are, by pod, when it was first
	// ready in an EndpointSlice, Healthy in istiod's endpoint index, and
	// sent a request.
	InSlice, InIstiod, FirstArrival map[string]time.Time
	// Evaluations are artt-scaler's, of the run's ScaledObjects, from its
	// log.
	Evaluations []Evaluation
	// Arrivals are, by pod, the samples Prometheus scraped of its
	// arrival counter.
	Arrivals map[string][]Sample
}

// Evaluation is one of artt-scaler's answers and what it read.
type Evaluation struct {
	At           time.Time
	ScaledObject string
	// CPURequest is the Ready pods' CPU requests it read, in cores.
	CPURequest, Arrivals, CPU, Value, Target float64
	PerPod                                   bool
}

// Sample is one scraped value of a counter.
type Sample struct {
	At    time.Time
	Value float64
}

// pipeline gathers a finished run's record: the watch's, artt-scaler's
// log, and Prometheus' samples of the scaled components' arrivals.
func (h *Harness) pipeline(ctx context.Context, a *Active, w *stageWatch, firstArrival map[string]time.Time) (*Pipeline, error) {
	if err := w.stop(); err != nil {
		return nil, fmt.Errorf("watching the pipeline: %w", err)
	}
	p := &Pipeline{HPA: w.statuses, InSlice: w.inSlice, InIstiod: map[string]time.Time{}, FirstArrival: firstArrival}
	pods, err := a.pods()
	if err != nil {
		return nil, err
	}
	for _, pod := range pods {
		if pod.Created.IsZero() {
			continue
		}
		if at := w.turnedHealthy(podIP(a.index, pod.Index), pod.Created); !at.IsZero() {
			p.InIstiod[pod.Name] = at
		}
	}
	if p.Evaluations, err = readEvaluations(filepath.Join(h.Cluster.Dir, "artt-scaler.log"), a.Namespace); err != nil {
		return nil, err
	}
	prom, err := promapi.NewClient(promapi.Config{Address: h.Cluster.Prom.URL})
	if err != nil {
		return nil, err
	}
	api, span := promv1.NewAPI(prom), time.Since(a.Started)+time.Minute
	if p.Arrivals, err = arrivalSamples(ctx, api, a.Namespace, span); err != nil {
		return nil, err
	}
	// The pods the run stopped before its end are read from Prometheus,
	// which scraped their first arrival while they ran.
	scraped, err := firstArrivals(ctx, api, a.Namespace, span)
	if p.FirstArrival == nil {
		p.FirstArrival = map[string]time.Time{}
	}
	for pod, at := range scraped {
		if _, ok := p.FirstArrival[pod]; !ok {
			p.FirstArrival[pod] = at
		}
	}
	return p, err
}

// readEvaluations reads artt-scaler's debug records of its answers for
// namespace ns (its JSON log: one "evaluated" record per answer).
func readEvaluations(path, ns string) ([]Evaluation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Evaluation
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		var rec struct {
			Time         time.Time `json:"time"`
			Msg          string    `json:"msg"`
			Namespace    string    `json:"namespace"`
			ScaledObject string    `json:"scaledObject"`
			Form         string    `json:"form"`
			Arrivals     float64   `json:"arrivals"`
			CPU          float64   `json:"cpu"`
			CPURequest   float64   `json:"cpuRequest"`
			Value        float64   `json:"value"`
			Target       float64   `json:"target"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Msg != "evaluated" || rec.Namespace != ns {
			continue
		}
		out = append(out, Evaluation{At: rec.Time, ScaledObject: rec.ScaledObject, CPURequest: rec.CPURequest, Arrivals: rec.Arrivals,
			CPU: rec.CPU, Value: rec.Value, Target: rec.Target, PerPod: rec.Form == "pods"})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// arrivalSamples are the raw samples of every pod's arrival counter in
// namespace ns over the last span.
func arrivalSamples(ctx context.Context, api promv1.API, ns string, span time.Duration) (map[string][]Sample, error) {
	query := fmt.Sprintf(`envoy_http_downstream_rq_total{namespace=%q}[%ds]`, ns, int(span.Seconds()))
	v, _, err := api.Query(ctx, query, time.Now())
	if err != nil {
		return nil, fmt.Errorf("prometheus: %s: %w", query, err)
	}
	matrix, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("prometheus: %s: a %s, want a matrix", query, v.Type())
	}
	out := map[string][]Sample{}
	for _, s := range matrix {
		pod := string(s.Metric["pod"])
		for _, p := range s.Values {
			out[pod] = append(out[pod], Sample{At: p.Timestamp.Time(), Value: float64(p.Value)})
		}
	}
	return out, nil
}

// firstArrivals are, by pod of namespace ns, when its first request
// arrived, as Prometheus last scraped it over the last span.
func firstArrivals(ctx context.Context, api promv1.API, ns string, span time.Duration) (map[string]time.Time, error) {
	query := fmt.Sprintf(`max by (pod) (max_over_time(%s{namespace=%q}[%ds]))`, backend.FirstArrivalGauge, ns, int(span.Seconds()))
	v, _, err := api.Query(ctx, query, time.Now())
	if err != nil {
		return nil, fmt.Errorf("prometheus: %s: %w", query, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("prometheus: %s: a %s, want a vector", query, v.Type())
	}
	out := map[string]time.Time{}
	for _, s := range vec {
		if at := backend.FirstArrivalAt(float64(s.Value)); !at.IsZero() {
			out[string(s.Metric["pod"])] = at
		}
	}
	return out, nil
}
