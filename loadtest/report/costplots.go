package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/artt-dev/artt/loadtest/emulator"
)

// costP99 plots replica-seconds against P99: the HPA sweep as the frontier
// (its lower envelope as a line, every sweep run as a grey point) and each
// other autoscaled run as a labelled point.
func costP99(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": cost against P99 (line: HPA sweep's frontier)", "replica-seconds", "P99 (ms)")
	return costPlot(p, results, P99, func(r *emulator.Result) float64 { return r.P99Ms })
}

// costSuccess plots replica-seconds against the success rate.
func costSuccess(title string, results []*emulator.Result) (*plot.Plot, error) {
	p := newPlot(title+": cost against success (line: HPA sweep's frontier)", "replica-seconds", "success (%)")
	success := func(fp FrontierPoint) float64 { return -100 * fp.Success } // lower is better on the envelope
	return costPlot(p, results, success, func(r *emulator.Result) float64 { return 100 * r.SuccessRate })
}

func costPlot(p *plot.Plot, results []*emulator.Result, measure func(FrontierPoint) float64, value func(*emulator.Result) float64) (*plot.Plot, error) {
	f := NewFrontier(results)
	if f == nil {
		return p, nil
	}
	p.Legend.Left = false
	// Plot values are positive: measures that negate for the envelope are
	// turned back.
	shown := func(fp FrontierPoint) float64 { return math.Abs(measure(fp)) }
	var env plotter.XYs
	for _, fp := range f.envelope(measure) {
		env = append(env, plotter.XY{X: fp.Cost, Y: shown(fp)})
	}
	// Dearer sweep points that did no better leave the frontier flat up to
	// the sweep's highest cost, as At reads it.
	if last := f.Points[len(f.Points)-1].Cost; len(env) > 0 && env[len(env)-1].X < last {
		env = append(env, plotter.XY{X: last, Y: env[len(env)-1].Y})
	}
	if len(env) > 0 {
		l, err := plotter.NewLine(env)
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 90}
		l.Width = vg.Points(1.6)
		p.Add(l)
		p.Legend.Add("HPA frontier", l)
	}
	var sweep plotter.XYs
	var sweepLabels []string
	for _, fp := range f.Points {
		if v := shown(fp); !math.IsNaN(v) && v > 0 {
			sweep = append(sweep, plotter.XY{X: fp.Cost, Y: v})
			sweepLabels = append(sweepLabels, fp.Run)
		}
	}
	if err := addPoints(p, sweep, sweepLabels, color.Gray{Y: 120}, draw.BoxGlyph{}, ""); err != nil {
		return nil, err
	}
	for i, r := range results {
		if !judged(r) {
			continue
		}
		v := value(r)
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		if err := addPoints(p, plotter.XYs{{X: r.ReplicaSeconds, Y: v}}, []string{r.Run}, plotutil.Color(i), draw.CircleGlyph{}, r.Run); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addPoints draws labelled points; legend names them when given.
func addPoints(p *plot.Plot, xy plotter.XYs, labels []string, c color.Color, shape draw.GlyphDrawer, legend string) error {
	if len(xy) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color = c
	sc.GlyphStyle.Radius = vg.Points(3.5)
	sc.GlyphStyle.Shape = shape
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Color = c
		lb.TextStyle[i].XAlign = draw.XLeft
	}
	lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	p.Add(lb)
	if legend != "" {
		p.Legend.Add(legend, sc)
	}
	return nil
}
