package metric

import (
	"math"
	"testing"
)

// BenchmarkEvaluate is one poll's evaluation at the default knobs (window
// 40, history 240: 279 samples), under the default normalization and
// under the calendar's at its defaults (a week of days at a minute: 10,081
// more samples of history), side by side: what the calendar adds to each
// poll's CPU.
func BenchmarkEvaluate(b *testing.B) {
	m := Measurements{Demand: make([]float64, 279), Arrivals: make([]float64, 279), CPU: make([]float64, 279), CPURequest: 2}
	for i := range m.Demand {
		m.Demand[i] = 100 + 20*math.Sin(float64(i)/7) + 5*math.Sin(float64(i)*1.7)
		m.Arrivals[i] = 1.05 * m.Demand[i]
		m.CPU[i] = m.Demand[i] * 0.01
	}
	for _, normalization := range []string{"lead", "calendar"} {
		b.Run("normalization="+normalization, func(b *testing.B) {
			s, err := ParseSettings(map[string]string{"normalization": normalization})
			if err != nil {
				b.Fatal(err)
			}
			in := m
			if s.UsesCalendar() {
				in.Calendar = make([]float64, s.Calendar.Points())
				perDay := float64(s.Calendar.Period / s.Calendar.Step)
				for i := range in.Calendar {
					in.Calendar[i] = 100 + 60*math.Sin(2*math.Pi*float64(i)/perDay) + 5*math.Sin(float64(i)*1.7)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Evaluate(s, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
