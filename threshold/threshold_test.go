package threshold

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// noisy returns n samples of level + slope·i + uniform noise in ±amp.
func noisy(seed uint64, n int, level, slope, amp float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	y := make([]float64, n)
	for i := range y {
		y[i] = level + slope*float64(i) + amp*(2*rng.Float64()-1)
	}
	return y
}

func constant(n int, v float64) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = v
	}
	return c
}

func TestTrackerHandWorked(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Normalization = NormalizationWelford // the paper's normalisation
	cases := []struct {
		name   string
		mode   Mode
		window []float64
		want   float64
		why    string
	}{
		{"clean climb", ModeARTT, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 50,
			"R² = 1 so w_T = 1; the first rising slope is its own upper bound, n_T = 1: θ = Min"},
		{"flat constant", ModeARTT, constant(10, 100), 80,
			"no trend and no residual: pressure 0, θ = Max"},
		{"LARE ignores a clean climb", ModeLARE, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 80,
			"volatility only, and a clean line has none: θ = Max"},
		{"static", ModeStatic, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 70,
			"static mode returns StaticThreshold"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Mode = tc.mode
			tr, err := NewTracker(c)
			if err != nil {
				t.Fatal(err)
			}
			r, err := tr.Update(tc.window, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Threshold-tc.want) > 1e-9 {
				t.Errorf("threshold = %v, want %v (%s); result %+v", r.Threshold, tc.want, tc.why, r)
			}
			if math.Abs(r.TrendWeight+r.VolatilityWeight-boolToFloat(tc.mode != ModeStatic)) > 1e-12 {
				t.Errorf("weights %v + %v do not sum to 1", r.TrendWeight, r.VolatilityWeight)
			}
		})
	}
}

func boolToFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestSteadyClimbLowersThresholdAgainstFlat(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Normalization = NormalizationWelford // the paper's normalisation
	const window, history = 40, 200
	flat, err := Replay(cfg, noisy(1, history, 100, 0, 10), constant(history, 0.01), window)
	if err != nil {
		t.Fatal(err)
	}
	climb, err := Replay(cfg, noisy(1, history, 100, 0.5, 10), constant(history, 0.01), window)
	if err != nil {
		t.Fatal(err)
	}
	if !(climb.Threshold < flat.Threshold) {
		t.Errorf("climb threshold %v not below flat threshold %v\nclimb %+v\nflat  %+v", climb.Threshold, flat.Threshold, climb, flat)
	}
	if climb.TrendWeight <= flat.TrendWeight {
		t.Errorf("climb trend weight %v not above flat %v", climb.TrendWeight, flat.TrendWeight)
	}
}

func TestSingleSpikeDoesNotMoveBounds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Normalization = NormalizationWelford // the paper's normalisation
	const window, history = 40, 160
	base := noisy(3, history, 100, 0, 5)
	spiky := append([]float64(nil), base...)
	spiky[history-10] = 1000 // one burst, ten samples before the end

	quiet, err := Replay(cfg, base, nil, window)
	if err != nil {
		t.Fatal(err)
	}
	burst, err := Replay(cfg, spiky, nil, window)
	if err != nil {
		t.Fatal(err)
	}
	rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
	if d := rel(burst.VolatilityUpper, quiet.VolatilityUpper); d > 0.02 {
		t.Errorf("volatility bound moved by %.1f%% on one spike: %v vs %v", 100*d, burst.VolatilityUpper, quiet.VolatilityUpper)
	}
	if d := rel(burst.Threshold, quiet.Threshold); d > 0.02 {
		t.Errorf("threshold moved by %.1f%% on one spike: %v vs %v", 100*d, burst.Threshold, quiet.Threshold)
	}
	if burst.Inliers != burst.Samples-1 {
		t.Errorf("the spike should be the only outlier of the last fit: %d inliers of %d", burst.Inliers, burst.Samples)
	}
}

func TestHigherPerRequestCostLowersThreshold(t *testing.T) {
	// In the lead normalisation noise counts only past the headroom that
	// MaxThreshold leaves below the request: ±30% uniform noise (σ ≈ 17%)
	// is past it, ±10% in the relative one is enough.
	for _, c := range []struct {
		normalization Normalization
		amp           float64
	}{{NormalizationRelative, 10}, {NormalizationLead, 30}} {
		t.Run(string(c.normalization), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Normalization = c.normalization
			higherCostLowersThreshold(t, cfg, c.amp)
		})
	}
}

func higherCostLowersThreshold(t *testing.T, cfg Config, amp float64) {
	const window, history = 40, 200
	demand := noisy(5, history, 100, 0, amp)
	same := constant(history, 0.010)
	slower := constant(history, 0.010)
	// The same demand, but for the last window the replicas run on slower
	// nodes: each request costs 30% more CPU.
	for i := history - window; i < history; i++ {
		slower[i] = 0.013
	}
	a, err := Replay(cfg, demand, same, window)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Replay(cfg, demand, slower, window)
	if err != nil {
		t.Fatal(err)
	}
	if !(b.Threshold < a.Threshold) {
		t.Errorf("threshold at higher per-request cost %v not below %v", b.Threshold, a.Threshold)
	}
	// LARE-HPA does not look at cost.
	cfg.Mode = ModeLARE
	la, _ := Replay(cfg, demand, same, window)
	lb, _ := Replay(cfg, demand, slower, window)
	if la.Threshold != lb.Threshold {
		t.Errorf("LARE threshold depends on cost: %v vs %v", la.Threshold, lb.Threshold)
	}
}

func TestReplayIsDeterministicAndSeeded(t *testing.T) {
	cfg := DefaultConfig()
	demand := noisy(9, 600, 50, 0.1, 20)
	cost := noisy(10, 600, 0.02, 0, 0.005)
	a, err := Replay(cfg, demand, cost, 240)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Replay(cfg, demand, cost, 240)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same input, different results:\n%+v\n%+v", a, b)
	}
	// A tracker fed the windows one by one gives the same answer as Replay.
	tr, _ := NewTracker(cfg)
	var last Result
	for end := 239; end < len(demand); end++ {
		last, err = tr.Update(demand[end-239:end+1], cost[end])
		if err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a, last) {
		t.Errorf("Replay and incremental Update disagree:\n%+v\n%+v", a, last)
	}
}

func TestReplayEdgeCases(t *testing.T) {
	cfg := DefaultConfig()
	nan := math.NaN()
	cases := []struct {
		name   string
		demand []float64
		cost   []float64
		window int
		fitted bool
		err    bool
	}{
		{"empty history rests at Max", nil, nil, 40, false, false},
		{"all NaN rests at Max", []float64{nan, nan, nan, nan, nan, nan}, nil, 40, false, false},
		{"shorter than the window is one window", []float64{1, 2, 3, 4, 5, 6}, nil, 40, true, false},
		{"cost of the wrong length is refused", []float64{1, 2, 3}, []float64{1}, 40, false, true},
		{"zero window is refused", []float64{1, 2, 3}, nil, 0, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(cfg, tc.demand, tc.cost, tc.window)
			if (err != nil) != tc.err {
				t.Fatalf("error = %v, want error %v", err, tc.err)
			}
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Errorf("error %v is not a *FieldError", err)
				}
				return
			}
			if r.Fitted != tc.fitted {
				t.Errorf("Fitted = %v, want %v", r.Fitted, tc.fitted)
			}
			if !tc.fitted && r.Threshold != cfg.MaxThreshold {
				t.Errorf("unfitted threshold = %v, want Max %v", r.Threshold, cfg.MaxThreshold)
			}
		})
	}
}

func TestConfigValidateNamesTheField(t *testing.T) {
	cases := []struct {
		field  string
		mutate func(*Config)
	}{
		{"Mode", func(c *Config) { c.Mode = "fast" }},
		{"MinThreshold", func(c *Config) { c.MinThreshold = -1 }},
		{"MinThreshold", func(c *Config) { c.MinThreshold = 90 }},
		{"MaxThreshold", func(c *Config) { c.MaxThreshold = math.NaN() }},
		{"StaticThreshold", func(c *Config) { c.StaticThreshold = math.Inf(1) }},
		{"Quantile", func(c *Config) { c.Quantile = 0.4 }},
		{"Quantile", func(c *Config) { c.Quantile = 1 }},
		{"WarmUp", func(c *Config) { c.WarmUp = 1 }},
		{"Deadband", func(c *Config) { c.Deadband = 1 }},
		{"RANSAC.MADMultiplier", func(c *Config) { c.RANSAC.MADMultiplier = 0 }},
		{"RANSAC.MaxIterations", func(c *Config) { c.RANSAC.MaxIterations = 0 }},
		{"RANSAC.Confidence", func(c *Config) { c.RANSAC.Confidence = 1 }},
		{"RANSAC.MinSamples", func(c *Config) { c.RANSAC.MinSamples = 2 }},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("Validate() = %v, want a FieldError on %s", err, tc.field)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

// FuzzReplay checks that any history, however broken, yields a threshold
// inside the bounds, never a panic.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(4), uint8(0))
	f.Add([]byte{255, 0, 255, 0, 255, 0, 1, 1}, uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, window uint8, mode uint8) {
		cfg := DefaultConfig()
		cfg.Mode = []Mode{ModeARTT, ModeLARE, ModeStatic}[int(mode)%3]
		demand := make([]float64, len(raw))
		cost := make([]float64, len(raw))
		for i, b := range raw {
			switch b {
			case 0:
				demand[i] = math.NaN()
			case 1:
				demand[i] = math.Inf(1)
			case 2:
				demand[i] = -1e308
			case 3:
				demand[i] = math.MaxFloat64
			case 4:
				demand[i] = math.SmallestNonzeroFloat64
			default:
				demand[i] = float64(b) * 3.7
			}
			cost[i] = float64(int(b)-100) / 1000
		}
		r, err := Replay(cfg, demand, cost, int(window)+1)
		if err != nil {
			t.Fatalf("Replay: %v", err)
		}
		lo, hi := cfg.MinThreshold, cfg.MaxThreshold
		if cfg.Mode == ModeStatic {
			lo, hi = cfg.StaticThreshold, cfg.StaticThreshold
		}
		if math.IsNaN(r.Threshold) || r.Threshold < lo || r.Threshold > hi {
			t.Fatalf("threshold %v outside [%v, %v]: %+v", r.Threshold, lo, hi, r)
		}
	})
}

func TestThresholdStaysWithinBoundsOnRandomSeries(t *testing.T) {
	cfg := DefaultConfig()
	for seed := uint64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		demand := noisy(seed, 120, rng.Float64()*1000, rng.NormFloat64(), rng.Float64()*500)
		r, err := Replay(cfg, demand, nil, 1+rng.IntN(60))
		if err != nil {
			t.Fatal(err)
		}
		if r.Threshold < cfg.MinThreshold || r.Threshold > cfg.MaxThreshold {
			t.Fatalf("seed %d: threshold %v outside bounds", seed, r.Threshold)
		}
	}
}

// The relative normalisation keeps the paper's intent in absolute terms: a
// steady workload runs near the maximum threshold whatever its past; a
// volatile one, or one climbing steadily, gets headroom. The paper's
// Welford normalisation measures each signal against its own history, so
// stationary noise of any size maps to about the same pressure.
func TestRelativeNormalisationFollowsTheWorkloadNotItsHistory(t *testing.T) {
	const window, history = 40, 320 // what one poll replays: window + history − 1 samples
	cfg := DefaultConfig()
	cfg.Normalization = NormalizationRelative
	theta := func(demand []float64) float64 {
		r, err := Replay(cfg, demand, nil, window)
		if err != nil {
			t.Fatal(err)
		}
		return r.Threshold
	}
	flat := noisy(7, history, 100, 0, 3)
	stepped := noisy(7, history, 100, 0, 3)
	for i := range stepped[:history-280] { // a step up 70 minutes (280 samples of 15 s) before the end
		stepped[i] *= 0.5
	}
	volatile := noisy(7, history, 100, 0, 30)
	climb := make([]float64, history)
	for i := range climb {
		climb[i] = 100 * math.Pow(2, float64(i)/float64(window-1)) // doubling across each window
	}
	cases := []struct {
		name   string
		demand []float64
		lo, hi float64
	}{
		{"flat, ±3% noise", flat, 74, 80},
		{"flat after a step long ago", stepped, 74, 80},
		{"volatile, ±30% noise", volatile, 50, 62},
		{"doubling across the window", climb, 50, 50},
	}
	for _, c := range cases {
		if got := theta(c.demand); got < c.lo || got > c.hi {
			t.Errorf("%s: θ = %.1f, want in [%v, %v]", c.name, got, c.lo, c.hi)
		}
	}
	if a, b := theta(flat), theta(stepped); math.Abs(a-b) > 1 {
		t.Errorf("θ %.1f for a flat workload, %.1f for the same one after a step 70 minutes ago; want the same", a, b)
	}
}

// The selection-based median equals the sorted one on windows of every
// shape: random, sorted, reversed, constant, few distinct values, even and
// odd lengths, and with a NaN.
func TestMedianBySelectionMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	for trial := range 3000 {
		n := 1 + rng.IntN(60)
		xs := make([]float64, n)
		for i := range xs {
			switch trial % 5 {
			case 0:
				xs[i] = rng.NormFloat64()
			case 1:
				xs[i] = float64(i)
			case 2:
				xs[i] = float64(n - i)
			case 3:
				xs[i] = 7
			default:
				xs[i] = float64(rng.IntN(3))
			}
		}
		if trial%97 == 0 {
			xs[rng.IntN(n)] = math.NaN()
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		want := sorted[n/2]
		if n%2 == 0 {
			want = (sorted[n/2-1] + sorted[n/2]) / 2
		}
		got := median(xs, make([]float64, n))
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d: median(%v) = %v, sorting gives %v", trial, xs, got, want)
		}
	}
}

// In the relative and lead normalisations Replay fits only the newest window that
// fits and counts the earlier windows' costs; the result must be the full
// replay's exactly, on histories with gaps, missing costs, and a newest
// window too sparse to fit.
func TestRelativeReplayEqualsFullReplay(t *testing.T) {
	for _, n := range []Normalization{NormalizationRelative, NormalizationLead} {
		t.Run(string(n), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Normalization = n
			fastReplayEqualsFullReplay(t, cfg)
		})
	}
}

func fastReplayEqualsFullReplay(t *testing.T, cfg Config) {
	rng := rand.New(rand.NewPCG(12, 5))
	for trial := range 300 {
		n := 1 + rng.IntN(120)
		window := 5 + rng.IntN(30)
		demand := noisy(uint64(trial), n, 100, rng.Float64()*2-1, 10)
		cost := make([]float64, n)
		for i := range demand {
			cost[i] = 0.01 + 0.01*rng.Float64()
			switch rng.IntN(8) {
			case 0:
				demand[i] = math.NaN()
			case 1:
				cost[i] = math.NaN()
			case 2:
				demand[i] = math.Inf(1) // missing, as NaN is
			}
		}
		if trial%5 == 0 { // a newest stretch too sparse to fit
			for i := max(0, n-window/2-3); i < n; i++ {
				demand[i] = math.NaN()
			}
		}
		got, err := Replay(cfg, demand, cost, window)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := NewTracker(cfg)
		want, err := replayEveryWindow(tr, demand, func(i int) float64 { return cost[i] }, max(min(window, n)-1, 0), window)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (n %d, window %d): fast replay %+v, full replay %+v", trial, n, window, got, want)
		}
	}
}
