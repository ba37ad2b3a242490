package report

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// A figure is one file: a plot of one group of runs, or of the whole
// scenario.
type figure struct {
	file string
	draw func(path string) error
}

// Plots writes the scenario's figures into dir and returns their paths.
// Routing comparisons (runs without an autoscaler) and autoscaling ones
// are drawn apart, so no figure mixes the two questions: for each group
// present, latency-ccdf-GROUP.png (the tail, log–log), p99-over-time-
// GROUP.png and balance-GROUP.png (each component's pods' utilisation, one
// panel per component); for autoscaled runs also replicas-over-time.png;
// and, when the runs include a sweep, cost-p99.png and, where some run
// lost requests, cost-success.png (every sweep's frontier, the floor, each
// autoscaler). title names the scenario and its seed.
func Plots(dir, title string, results []*outcome.Result) ([]string, error) {
	var figs []figure
	for _, g := range groups(results) {
		figs = append(figs,
			single("latency-ccdf-"+g.name+".png", func() (*plot.Plot, error) { return latencyCCDF(title+", "+g.caption, g.runs) }),
			single("p99-over-time-"+g.name+".png", func() (*plot.Plot, error) { return p99OverTime(title+", "+g.caption, g.runs) }),
			figure{"balance-" + g.name + ".png", func(path string) error { return balance(path, title+", "+g.caption, g.runs) }},
		)
		if g.name == "autoscaling" {
			figs = append(figs, figure{"replicas-over-time.png", func(path string) error { return replicasOverTime(path, title, g.runs) }})
		}
	}
	if hasSweep(results) {
		figs = append(figs, single("cost-p99.png", func() (*plot.Plot, error) { return costP99(title, results) }))
		if successDiffers(results) {
			figs = append(figs, single("cost-success.png", func() (*plot.Plot, error) { return costSuccess(title, results) }))
		}
	}
	var paths []string
	for _, f := range figs {
		path := filepath.Join(dir, f.file)
		if err := f.draw(path); err != nil {
			return nil, fmt.Errorf("%s: %w", f.file, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// single is a figure of one plot at the reports' size, its legend in a
// column of its own beside the data, where it can hide no curve.
func single(file string, make func() (*plot.Plot, error)) figure {
	return figure{file, func(path string) error {
		p, err := make()
		if err != nil {
			return err
		}
		return saveWithLegendBeside(p, path)
	}}
}

// legendWidth fits a run's name such as least-request+artt-hpa-welford, and two
// runs' names where their points coincide.
const legendWidth = 3.2 * vg.Inch

func saveWithLegendBeside(p *plot.Plot, path string) error {
	const width, height = 10 * vg.Inch, 5 * vg.Inch
	legend := p.Legend
	p.Legend = plot.NewLegend()
	img := vgimg.New(width, height)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Top, legend.Left = true, true
	legend.YOffs = -p.Title.TextStyle.Height(p.Title.Text) - vg.Points(16)
	legend.Draw(draw.Crop(dc, width-legendWidth+vg.Points(8), 0, 0, 0))
	return writePNG(img, path)
}

func writePNG(img *vgimg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// group is runs that answer one question.
type group struct {
	name, caption string
	runs          []*outcome.Result
}

// groups splits the runs: routing runs (no autoscaler), and autoscaled
// runs with the floor as their reference. Sweep runs are drawn only on the
// cost plots, as frontiers: a figure of every sweep point's curve has more
// series than a reader can tell apart.
func groups(results []*outcome.Result) []group {
	routing := group{name: "routing", caption: "routing runs (fixed replicas)"}
	scaled := group{name: "autoscaling", caption: "autoscaled runs"}
	for _, r := range results {
		switch {
		case r.Frontier:
		case r.Autoscaling == "" || r.Autoscaling == "none":
			routing.runs = append(routing.runs, r)
		default:
			scaled.runs = append(scaled.runs, r)
		}
	}
	var out []group
	for _, g := range []group{routing, scaled} {
		if len(g.runs) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// successDiffers reports whether some run the cost plots show (the
// sweeps, the floor, the autoscalers) lost requests: where none did, a plot
// of success against cost is a flat line at 100%.
func successDiffers(results []*outcome.Result) bool {
	for _, r := range results {
		if (r.Frontier || r.Floor || judged(r)) && r.SuccessRate < 1 {
			return true
		}
	}
	return false
}

func hasSweep(results []*outcome.Result) bool {
	for _, s := range allSweeps() {
		if NewSweep(results, s.Sweep) != nil {
			return true
		}
	}
	return false
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
