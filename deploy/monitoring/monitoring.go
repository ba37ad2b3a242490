// Package monitoring holds ARTT's Grafana dashboard and Prometheus alerts
// (applied with kubectl apply -k deploy/monitoring) and lists every PromQL
// expression they contain, so the tests can check each one against the
// metrics the components really export.
package monitoring

import (
	"embed"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

//go:embed dashboard.json alerts.yaml
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
