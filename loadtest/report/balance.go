package report

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// balance writes one panel per component: a horizontal box per run over
// that component's pods' mean CPU utilisation, the pods as dots. Pods of
// different components differ by design; HEART's claim, and the report's
// balance figures, are about one component's replicas.
func balance(path, title string, results []*outcome.Result) error {
	comps := componentsOf(results)
	if len(comps) == 0 {
		comps = []string{""}
	}
	cols := min(len(comps), 2)
	rows := (len(comps) + cols - 1) / cols
	panels := make([][]*plot.Plot, rows)
	for i := range panels {
		panels[i] = make([]*plot.Plot, cols)
	}
	for i, c := range comps {
		p, _, err := balancePanel(c, results)
		if err != nil {
			return err
		}
		panels[i/cols][i%cols] = p
	}
	for i := len(comps); i < rows*cols; i++ {
		empty := plot.New()
		empty.HideAxes()
		panels[i/cols][i%cols] = empty
	}
	height := vg.Length(rows) * (vg.Inch + vg.Length(len(results))*vg.Points(22))
	img := vgimg.New(10*vg.Inch, height+0.7*vg.Inch)
	dc := draw.New(img)
	heading := plot.New().Title.TextStyle
	heading.XAlign, heading.YAlign = draw.XCenter, draw.YCenter
	dc.FillText(heading, vg.Point{X: 5 * vg.Inch, Y: height + 0.35*vg.Inch},
		title+": each pod's CPU utilisation of its limit, by component\n(box: quartiles; whiskers: 1.5 times the interquartile range; dots: the pods)")
	body := draw.Crop(dc, 0, 0, 0, -0.7*vg.Inch)
	canvases := plot.Align(panels, draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}, body)
	for i := range panels {
		for j := range panels[i] {
			panels[i][j].Draw(canvases[i][j])
		}
	}
	return writePNG(img, path)
}

// componentsOf is the components of the runs, in the scenario's order.
func componentsOf(results []*outcome.Result) []string {
	var out []string
	for _, r := range results {
		for _, p := range r.Pods {
			if !slices.Contains(out, p.Component) {
				out = append(out, p.Component)
			}
		}
	}
	return out
}

// balancePanel is one component's panel, and its boxes by run (nil where a
// run measured no pod of it). A box spans the pods the report's balance
// counts: those that lived at least PodMinSeconds.
func balancePanel(component string, results []*outcome.Result) (*plot.Plot, []*plotter.BoxPlot, error) {
	p := newPlot(component, "utilisation (%)", "")
	boxes := make([]*plotter.BoxPlot, len(results))
	var names []string
	for i, r := range results {
		names = append(names, r.Run)
		var vals plotter.Values
		var dots plotter.XYs
		for j, pod := range r.Pods {
			if pod.Component != component || math.IsNaN(pod.Utilization) || pod.Seconds < r.PodMinSeconds {
				continue
			}
			vals = append(vals, 100*pod.Utilization)
			dots = append(dots, plotter.XY{X: 100 * pod.Utilization, Y: float64(i) + (float64(j%5)-2)*0.06})
		}
		if len(vals) == 0 {
			continue
		}
		box, err := plotter.NewBoxPlot(vg.Points(14), float64(i), vals)
		if err != nil {
			return nil, nil, err
		}
		box.Horizontal = true
		box.FillColor = color.RGBA{R: 200, G: 215, B: 235, A: 255}
		boxes[i] = box
		p.Add(box)
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, nil, err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Radius = vg.Points(2)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
	}
	p.NominalY(names...)
	p.Legend = plot.NewLegend()
	return p, boxes, nil
}
