package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// p99OverTime: each run's P99 per sample interval, log scale, the load's
// steps and the injected events marked.
func p99OverTime(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": P99 latency per sample interval", "time (s)", "P99 of the interval's answers (ms, log scale)")
	drawn := false
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
	if !drawn {
		return p, nil // a log axis over no data has no range
	}
	logAxis(&p.Y)
	return p, markEvents(p, results)
}

// replicasOverTime is two panels over one time axis: the offered load
// above, each autoscaled run's ready replicas below, the load's steps and
// the events marked on both.
func replicasOverTime(path, title string, results []*outcome.Result) error {
	load := newPlot(title+": the offered load and the ready replicas (all components)", "", "offered load (req/s)")
	if len(results) > 0 {
		var xy plotter.XYs
		for _, pt := range results[0].Series {
			xy = append(xy, plotter.XY{X: pt.T, Y: pt.Rate})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Width = color.Gray{Y: 90}, vg.Points(1.4)
		load.Add(l)
		load.Y.Min = 0
	}
	reps := newPlot("", "time (s)", "ready replicas")
	for i, r := range results {
		var xy plotter.XYs
		for _, pt := range r.Series {
			xy = append(xy, plotter.XY{X: pt.T, Y: float64(totalReplicas(pt))})
		}
		if err := addRunLine(reps, xy, i, r.Run); err != nil {
			return err
		}
	}
	// Room above the top line, which would otherwise lie on the frame.
	reps.Y.Min, reps.Y.Max = math.Max(0, reps.Y.Min-1), reps.Y.Max+1
	for _, p := range []*plot.Plot{load, reps} {
		if err := markEvents(p, results); err != nil {
			return err
		}
	}
	load.X.Min, load.X.Max = reps.X.Min, reps.X.Max
	return saveStacked([]*plot.Plot{load, reps}, reps.Legend, path)
}

// markEvents draws each change of the offered load and each injected
// event as a dotted vertical line across p, described at the top: the
// load's in blue, the events' in grey.
func markEvents(p *plot.Plot, results []*outcome.Result) error {
	if len(results) == 0 {
		return nil
	}
	lo, hi := p.Y.Min, p.Y.Max
	for _, st := range results[0].LoadSteps {
		if err := addMark(p, st.At, lo, hi, st.Description, color.RGBA{R: 40, G: 90, B: 160, A: 255}); err != nil {
			return err
		}
	}
	for _, ev := range results[0].AfterEvents {
		if err := addMark(p, ev.At, lo, hi, ev.Description, color.Gray{Y: 90}); err != nil {
			return err
		}
	}
	p.Y.Min, p.Y.Max = lo, hi
	return nil
}

// addMark draws one dotted vertical line at x from lo to hi, its label at
// the top.
func addMark(p *plot.Plot, x, lo, hi float64, label string, c color.Color) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = c, []vg.Length{vg.Points(1), vg.Points(3)}, vg.Points(1.2)
	p.Add(l)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: hi}}, Labels: []string{label}})
	if err != nil {
		return err
	}
	lb.TextStyle[0].Color, lb.TextStyle[0].Font.Size, lb.TextStyle[0].YAlign = c, vg.Points(8), draw.YTop
	lb.Offset = vg.Point{X: vg.Points(3)}
	p.Add(lb)
	return nil
}

// saveStacked draws plots one above another, their axes aligned over a
// shared time axis, with the legend in a column beside them.
func saveStacked(plots []*plot.Plot, legend plot.Legend, path string) error {
	const width, height = 10 * vg.Inch, 7 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	column := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		p.Legend = plot.NewLegend()
		column[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(6)}
	canvases := plot.Align(column, tiles, draw.Crop(dc, 0, -legendWidth, 0, 0))
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	legend.Top, legend.Left = true, true
	legend.YOffs = -height/vg.Length(len(plots)) - vg.Points(8)
	legend.Draw(draw.Crop(dc, width-legendWidth+vg.Points(8), 0, 0, 0))
	return writePNG(img, path)
}

// totalReplicas is the ready replicas of every component at a point.
func totalReplicas(pt outcome.Point) int {
	total := 0
	for _, n := range pt.Replicas {
		total += n
	}
	return total
}
