package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// latencyCCDF: the fraction of successful requests slower than each
// latency, log–log, so the P99 and the P99.9 are read off the picture
// where a CDF squeezes them into its top pixel row. Dashed lines mark the
// fractions 1% (P99, long dashes) and 0.1% (P99.9, dots).
func latencyCCDF(title string, results []*outcome.Result) (*plot.Plot, error) {
	p := newPlot(title+": latency tail (successful requests)", "latency (ms, log scale)", "fraction slower (log scale)")
	p.Legend.Top, p.Legend.Left = false, true // the curves leave the lower left empty
	drawn := false
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range results {
		xy := ccdf(r.LatenciesMs)
		if len(xy) == 0 {
			continue
		}
		if err := addRunLine(p, xy, i, r.Run); err != nil {
			return nil, err
		}
		lo, hi = math.Min(lo, xy[0].X), math.Max(hi, xy[len(xy)-1].X)
		drawn = true
	}
	if !drawn {
		return p, nil // a log axis over no data has no range
	}
	for _, q := range []struct {
		y      float64
		label  string
		grey   uint8
		dashes []vg.Length
	}{
		{0.01, "P99 (1% slower)", 60, []vg.Length{vg.Points(8), vg.Points(4)}},
		{0.001, "P99.9 (0.1% slower)", 140, []vg.Length{vg.Points(2), vg.Points(3)}},
	} {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: q.y}, {X: hi, Y: q.y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes, l.Width = color.Gray{Y: q.grey}, q.dashes, vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(q.label, l)
	}
	logAxis(&p.X)
	logAxis(&p.Y)
	return p, nil
}

// ccdf is the complementary CDF of sorted latencies: at each latency, the
// fraction of the others strictly slower, from the fastest to the second
// slowest (the slowest has none slower, which a log axis cannot show).
// Below a tenth it keeps every point, where the tail is; above, 200 are
// enough to draw the body.
func ccdf(sorted []float64) plotter.XYs {
	n := len(sorted)
	var xy plotter.XYs
	step := max(1, n/200)
	above := 0 // the first index past sorted[k]: ties are not slower
	for k := 0; k < n-1; k++ {
		for above < n && sorted[above] <= sorted[k] {
			above++
		}
		y := float64(n-above) / float64(n)
		if y <= 0 {
			break
		}
		if y > 0.1 && k%step != 0 {
			continue
		}
		xy = append(xy, plotter.XY{X: math.Max(sorted[k], 1e-3), Y: y})
	}
	return xy
}
