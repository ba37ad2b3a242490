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

// p99OverTime: each run's P99 per sample interval, log scale, the
// injected events marked.
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
// above, each autoscaled run's ready replicas below, the events marked on
// both.
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

// markEvents draws each injected event as a dotted vertical line across
// p, its description written at the top.
func markEvents(p *plot.Plot, results []*outcome.Result) error {
	if len(results) == 0 || len(results[0].AfterEvents) == 0 {
		return nil
	}
	lo, hi := p.Y.Min, p.Y.Max
	var at plotter.XYs
	var labels []string
	for _, ev := range results[0].AfterEvents {
		l, err := plotter.NewLine(plotter.XYs{{X: ev.At, Y: lo}, {X: ev.At, Y: hi}})
		if err != nil {
			return err
		}
		l.Color, l.Dashes, l.Width = color.Gray{Y: 120}, []vg.Length{vg.Points(1), vg.Points(3)}, vg.Points(1.2)
		p.Add(l)
		at = append(at, plotter.XY{X: ev.At, Y: hi})
		labels = append(labels, ev.Description)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Color = color.Gray{Y: 80}
		lb.TextStyle[i].Font.Size = vg.Points(8)
		lb.TextStyle[i].YAlign = draw.YTop
	}
	lb.Offset = vg.Point{X: vg.Points(3)}
	p.Add(lb)
	p.Y.Min, p.Y.Max = lo, hi
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
