package report

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// runColors tell up to ten runs apart at a glance (Tableau's ten, which
// keep apart for readers with the common colour-vision deficiencies
// better than hues picked by eye).
var runColors = []color.Color{
	color.RGBA{R: 0x4E, G: 0x79, B: 0xA7, A: 255}, color.RGBA{R: 0xF2, G: 0x8E, B: 0x2B, A: 255},
	color.RGBA{R: 0xE1, G: 0x57, B: 0x59, A: 255}, color.RGBA{R: 0x76, G: 0xB7, B: 0xB2, A: 255},
	color.RGBA{R: 0x59, G: 0xA1, B: 0x4F, A: 255}, color.RGBA{R: 0xB0, G: 0x7A, B: 0xA1, A: 255},
	color.RGBA{R: 0x9C, G: 0x75, B: 0x5F, A: 255}, color.RGBA{R: 0xFF, G: 0x9D, B: 0xA7, A: 255},
	color.RGBA{R: 0x3B, G: 0x3B, B: 0x3B, A: 255}, color.RGBA{R: 0xBA, G: 0xB0, B: 0xAC, A: 255},
}

func runColor(i int) color.Color { return runColors[i%len(runColors)] }

// runWidth is run i's line width: each run drawn thinner than the one
// before it, and each in a dash pattern of its own, so a run whose line
// lies on an earlier one's leaves that one showing beside it and through
// its gaps.
func runWidth(i int) vg.Length { return vg.Points(math.Max(1.4, 3.2-0.3*float64(i))) }

// addRunLine draws run i's line in its colour, width and dashes, and names
// it in the legend.
func addRunLine(p *plot.Plot, xy plotter.XYs, i int, name string) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = runColor(i), runWidth(i), plotutil.Dashes(i)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// readableLogTicks label a log axis at 1, 2 and 5 times each power of ten
// when it spans at most three decades, and at the powers alone beyond, so
// even an axis within one decade has labelled ticks (gonum's LogTicks
// label only the powers of ten).
type readableLogTicks struct{}

func (readableLogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	labelled := []float64{1, 2, 5}
	if hi-lo > 3 {
		labelled = []float64{1}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		decade := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * decade
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			for _, l := range labelled {
				if m == l {
					t.Label = strconv.FormatFloat(v, 'g', -1, 64)
				}
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logAxis puts a plot axis on a log scale with readable ticks.
func logAxis(a *plot.Axis) { a.Scale, a.Tick.Marker = plot.LogScale{}, readableLogTicks{} }
