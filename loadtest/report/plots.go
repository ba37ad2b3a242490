package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/artt-dev/artt/loadtest/emulator"
)

// Plots writes latency-cdf.png, p99-over-time.png, replicas-over-time.png
// and cpu-per-pod.png into dir, and cost-p99.png and cost-success.png when
// the runs include an HPA sweep, and returns their paths.
func Plots(dir, title string, results []*emulator.Result) ([]string, error) {
	type maker struct {
		file string
		make func(string, []*emulator.Result) (*plot.Plot, error)
	}
	makers := []maker{
		{"latency-cdf.png", latencyCDF},
		{"p99-over-time.png", p99OverTime},
		{"replicas-over-time.png", replicasOverTime},
		{"cpu-per-pod.png", cpuPerPod},
	}
	if NewFrontier(results) != nil {
		makers = append(makers, maker{"cost-p99.png", costP99}, maker{"cost-success.png", costSuccess})
	}
	var paths []string
	for _, m := range makers {
		p, err := m.make(title, results)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.file, err)
		}
		path := filepath.Join(dir, m.file)
		if err := p.Save(9*vg.Inch, 5*vg.Inch, path); err != nil {
			return nil, fmt.Errorf("%s: %w", m.file, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// addRunLine draws run i's line in its colour and names it in the legend.
func addRunLine(p *plot.Plot, xy plotter.XYs, i int, name string) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i / 7)
	l.Width = vg.Points(1.6)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// latencyCDF: fraction of successful requests at or below each latency,
// log latency axis; each run's curve ends below 1 by its failure rate.
func latencyCDF(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": latency CDF (successful requests; curves end at the success rate)", "latency (ms, log scale)", "fraction of requests")
	p.Legend.Top, p.Legend.Left = false, false
	drawn := false
	defer func() {
		// A log axis over no data has no range; leave it linear then.
		if drawn {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	}()
	for i, r := range results {
		n := len(r.LatenciesMs)
		if n == 0 {
			continue
		}
		const points = 400
		xy := make(plotter.XYs, 0, points)
		for k := 0; k <= points; k++ {
			q := float64(k) / points
			idx := min(int(q*float64(n-1)), n-1)
			v := math.Max(r.LatenciesMs[idx], 1e-3)
			xy = append(xy, plotter.XY{X: v, Y: q * r.SuccessRate})
		}
		if err := addRunLine(p, xy, i, r.Run); err != nil {
			return nil, err
		}
		drawn = true
	}
	return p, nil
}

func p99OverTime(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": P99 latency per sample interval", "time (s)", "P99 (ms, log scale)")
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

func replicasOverTime(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": ready replicas (all components) and offered load", "time (s)", "ready replicas")
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

// cpuPerPod: one box per run over its pods' mean CPU utilisation, with the
// pods as dots.
func cpuPerPod(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": mean CPU utilisation per pod (box: quartiles; dots: pods)", "", "CPU utilisation of the limit (%)")
	p.Legend.Top = true
	var names []string
	for i, r := range results {
		var vals plotter.Values
		var dots plotter.XYs
		for j, pod := range r.Pods {
			if math.IsNaN(pod.Utilization) {
				continue
			}
			vals = append(vals, 100*pod.Utilization)
			jitter := (float64(j%7) - 3) * 0.04
			dots = append(dots, plotter.XY{X: float64(i) + jitter, Y: 100 * pod.Utilization})
		}
		names = append(names, r.Run)
		if len(vals) == 0 {
			continue
		}
		box, err := plotter.NewBoxPlot(vg.Points(40), float64(i), vals)
		if err != nil {
			return nil, err
		}
		box.FillColor = color.RGBA{R: 200, G: 215, B: 235, A: 255}
		p.Add(box)
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Radius = vg.Points(2)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
	}
	p.NominalX(names...)
	p.Legend = plot.NewLegend()
	return p, nil
}

// totalReplicas is the ready replicas of every component at a point.
func totalReplicas(pt emulator.Point) int {
	total := 0
	for _, n := range pt.Replicas {
		total += n
	}
	return total
}
