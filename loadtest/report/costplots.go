package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// costP99 plots replica-seconds against P99: each sweep's frontier (its
// lower envelope) as a line over its runs as small points, the floor as a
// horizontal line, and each autoscaler as a labelled point.
func costP99(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": cost against P99 at equal cost (lines: each sweep's frontier)", "cost (replica-seconds)", "P99 (ms)")
	drawn, err := costPlot(p, results, P99, func(r *outcome.Result) float64 { return r.P99Ms }, FloorP99(results))
	if err == nil && drawn && p.Y.Min > 0 && p.Y.Max/p.Y.Min >= 10 {
		// Sweeps and the floor can lie an order of magnitude apart; within
		// one decade the axis stays linear.
		logAxis(&p.Y)
		p.Y.Label.Text = "P99 (ms, log scale)"
	}
	return p, err
}

// costSuccess plots replica-seconds against the success rate.
func costSuccess(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": cost against success at equal cost (lines: each sweep's frontier)", "cost (replica-seconds)", "requests answered in time (%)")
	success := func(fp FrontierPoint) float64 { return -100 * fp.Success } // lower is better on the envelope
	floor := math.NaN()
	for _, r := range results {
		if r.Floor {
			floor = 100 * r.SuccessRate
		}
	}
	_, err := costPlot(p, results, success, func(r *outcome.Result) float64 { return 100 * r.SuccessRate }, floor)
	return p, err
}

// sweepColors tell the frontiers apart, in the order of Sweeps, then
// Limits.
var sweepColors = []color.Color{
	color.Gray{Y: 60}, color.RGBA{R: 170, G: 90, B: 20, A: 255}, color.RGBA{R: 40, G: 120, B: 60, A: 255},
	color.RGBA{R: 120, G: 40, B: 160, A: 255}, color.RGBA{R: 190, G: 120, B: 220, A: 255}, color.RGBA{R: 60, G: 20, B: 90, A: 255},
}

// costPlot draws the frontiers, the floor and the autoscalers on p, and
// reports whether it drew any value (all of them positive).
func costPlot(p *plot.Plot, results []*outcome.Result, measure func(FrontierPoint) float64, value func(*outcome.Result) float64, floor float64) (bool, error) {
	// Plot values are positive: measures that negate for the envelope are
	// turned back.
	shown := func(fp FrontierPoint) float64 { return math.Abs(measure(fp)) }
	lo, hi := math.Inf(1), math.Inf(-1)
	drawn := false
	for si, s := range allSweeps() {
		f := NewSweep(results, s.Sweep)
		if f == nil {
			continue
		}
		lo, hi = math.Min(lo, f.Points[0].Cost), math.Max(hi, f.Points[len(f.Points)-1].Cost)
		ok, err := addFrontier(p, f, measure, shown, s.Name, sweepColors[si], si)
		if err != nil {
			return false, err
		}
		drawn = drawn || ok
	}
	var pts plotter.XYs
	var labels []string
	for _, r := range results {
		if v := value(r); judged(r) && !math.IsNaN(v) && v > 0 {
			pts = append(pts, plotter.XY{X: r.ReplicaSeconds, Y: v})
			labels = append(labels, r.Run)
			lo, hi = math.Min(lo, r.ReplicaSeconds), math.Max(hi, r.ReplicaSeconds)
		}
	}
	if !math.IsNaN(floor) && floor > 0 && lo < hi {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: floor}, {X: hi, Y: floor}})
		if err != nil {
			return false, err
		}
		l.Color = color.RGBA{R: 30, G: 90, B: 200, A: 255}
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("floor (maxReplicas throughout)", l)
	}
	// Each autoscaler is named in the legend by its own colour and glyph:
	// names written beside points that stand close overlap.
	pts, labels = mergeCoincident(pts, labels)
	for i := range pts {
		sc, err := plotter.NewScatter(pts[i : i+1])
		if err != nil {
			return false, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = runColor(i), vg.Points(4), plotutil.Shape(i)
		p.Add(sc)
		p.Legend.Add(labels[i], sc)
	}
	return drawn || len(pts) > 0, nil
}

// addFrontier draws one sweep: its envelope as a line, flat up to its
// dearest run (which did no better), its runs as small points, the
// cheapest and the dearest labelled with their knob's value to show which
// way it runs.
func addFrontier(p *plot.Plot, f *Frontier, measure, shown func(FrontierPoint) float64, name string, c color.Color, i int) (bool, error) {
	var env plotter.XYs
	for _, fp := range f.envelope(measure) {
		env = append(env, plotter.XY{X: fp.Cost, Y: shown(fp)})
	}
	if last := f.Points[len(f.Points)-1].Cost; len(env) > 0 && env[len(env)-1].X < last {
		env = append(env, plotter.XY{X: last, Y: env[len(env)-1].Y})
	}
	if len(env) == 0 {
		return false, nil
	}
	l, err := plotter.NewLine(env)
	if err != nil {
		return false, err
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.6), plotutil.Dashes(i)
	p.Add(l)
	p.Legend.Add(name+" frontier", l)
	var runs plotter.XYs
	var labels []string
	for _, fp := range f.Points {
		if v := shown(fp); !math.IsNaN(v) && v > 0 {
			runs = append(runs, plotter.XY{X: fp.Cost, Y: v})
			labels = append(labels, fp.Run)
		}
	}
	if len(runs) == 0 {
		return true, nil
	}
	if n := len(labels); n > 2 {
		for i := 1; i < n-1; i++ {
			labels[i] = ""
		}
	}
	sc, err := plotter.NewScatter(runs)
	if err != nil {
		return false, err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = c, vg.Points(2), draw.BoxGlyph{}
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: runs, Labels: labels})
	if err != nil {
		return false, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Color = c
		lb.TextStyle[i].Font.Size = vg.Points(8)
		lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XRight, draw.YTop
	}
	lb.Offset = vg.Point{X: vg.Points(-3), Y: vg.Points(-3)}
	p.Add(lb)
	return true, nil
}

// mergeCoincident joins the labels of points that stand within half a
// percent of each other on both axes, so two runs with equal results do
// not hide each other's names.
func mergeCoincident(pts plotter.XYs, labels []string) (plotter.XYs, []string) {
	var outPts plotter.XYs
	var outLabels []string
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.005*math.Max(math.Abs(a), math.Abs(b)) }
	for i, pt := range pts {
		merged := false
		for j, q := range outPts {
			if near(pt.X, q.X) && near(pt.Y, q.Y) {
				outLabels[j] += ", " + labels[i]
				merged = true
				break
			}
		}
		if !merged {
			outPts = append(outPts, pt)
			outLabels = append(outLabels, labels[i])
		}
	}
	return outPts, outLabels
}
