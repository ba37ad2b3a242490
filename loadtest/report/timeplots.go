package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// p99OverTime: each run's P99 per sample interval, log scale.
func p99OverTime(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": P99 latency per sample interval", "time (s)", "P99 of the interval's answers (ms, log scale)")
	drawn := false
	defer func() {
		if drawn {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	}()
	for i, r := range results {
		var xy plotter.XYs
		for _, pt := range r.Series {
			if !math.IsNaN(pt.P99Ms) && pt.P99Ms > 0 {
				xy = append(xy, plotter.XY{X: pt.T, Y: pt.P99Ms})
			}
		}
		if len(xy) == 0 {
			continue
		}
		if err := addRunLine(p, xy, i, r.Run); err != nil {
			return nil, err
		}
		drawn = true
	}
	return p, nil
}

// replicasOverTime: each autoscaled run's ready replicas, with the
// offered load scaled onto the same axis.
func replicasOverTime(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": ready replicas (all components) and the offered load", "time (s)", "ready replicas")
	maxRate, maxRep := 0.0, 0.0
	for _, r := range results {
		for _, pt := range r.Series {
			maxRate = math.Max(maxRate, pt.Rate)
			maxRep = math.Max(maxRep, float64(totalReplicas(pt)))
		}
	}
	for i, r := range results {
		var xy plotter.XYs
		for _, pt := range r.Series {
			xy = append(xy, plotter.XY{X: pt.T, Y: float64(totalReplicas(pt))})
		}
		if err := addRunLine(p, xy, i, r.Run); err != nil {
			return nil, err
		}
	}
	if len(results) > 0 && maxRate > 0 {
		// The offered load, scaled onto the replica axis, in grey.
		var xy plotter.XYs
		for _, pt := range results[0].Series {
			xy = append(xy, plotter.XY{X: pt.T, Y: pt.Rate / maxRate * maxRep})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 170}
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("load (max %.0f req/s)", maxRate), l)
	}
	return p, nil
}

// totalReplicas is the ready replicas of every component at a point.
func totalReplicas(pt outcome.Point) int {
	total := 0
	for _, n := range pt.Replicas {
		total += n
	}
	return total
}
