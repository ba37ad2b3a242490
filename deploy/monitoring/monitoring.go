// Package monitoring holds ARTT's Grafana dashboard, Prometheus alerts and
// artt-traffic's recording rules (applied with kubectl apply -k
// deploy/monitoring). It lists every PromQL expression the dashboard and
// the alerts contain, so the tests can check each one against the metrics
// the components really export, and gives the recording rules as a
// Prometheus rules file, so the tests can load them into a real Prometheus.
package monitoring

import (
	"embed"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

//go:embed dashboard.json alerts.yaml recording-rules.yaml
var files embed.FS

// Expressions returns every expression of the dashboard's panels and of the
// alerts, keyed by where it stands.
func Expressions() (map[string]string, error) {
	out := map[string]string{}
	raw, err := files.ReadFile("dashboard.json")
	if err != nil {
		return nil, err
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		return nil, fmt.Errorf("dashboard.json: %w", err)
	}
	for _, p := range dash.Panels {
		for i, tg := range p.Targets {
			out[fmt.Sprintf("panel %q target %d", p.Title, i)] = tg.Expr
		}
	}
	if raw, err = files.ReadFile("alerts.yaml"); err != nil {
		return nil, err
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert, Expr string
				}
			}
		}
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil {
		return nil, fmt.Errorf("alerts.yaml: %w", err)
	}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = r.Expr
		}
	}
	return out, nil
}

// Recording is one recording rule.
type Recording struct {
	Record string `json:"record"`
	Expr   string `json:"expr"`
}

// RecordingRules returns recording-rules.yaml's rules in their order, and
// the same as a Prometheus rules file (what the Prometheus Operator
// generates from the PrometheusRule).
func RecordingRules() ([]Recording, string, error) {
	raw, err := files.ReadFile("recording-rules.yaml")
	if err != nil {
		return nil, "", err
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Name     string      `json:"name"`
				Interval string      `json:"interval"`
				Rules    []Recording `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil {
		return nil, "", fmt.Errorf("recording-rules.yaml: %w", err)
	}
	var out []Recording
	for _, g := range rule.Spec.Groups {
		out = append(out, g.Rules...)
	}
	file, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		return nil, "", err
	}
	return out, string(file), nil
}
