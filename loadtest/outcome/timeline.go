package outcome

import (
	"fmt"
	"math"
)

// Stage is one step of the autoscaling pipeline, from the load's step to a
// new pod's first request, in the order a step goes through them.
type Stage int

const (
	// StageScraped: Prometheus holds a sample whose rate of arrivals at
	// the component is past the step's midpoint.
	StageScraped Stage = iota
	// StageScalerRaised: artt-scaler's first evaluation whose answer asks
	// for more pods than the component had at the step.
	StageScalerRaised
	// StageHPARead: the HPA's first sync that read such an answer through
	// KEDA's metrics adapter.
	StageHPARead
	// StageHPAScaled: the HPA's first scale-up after the step.
	StageHPAScaled
	// StageHPAEnough: the HPA's first desired count at or above the pods
	// the step needs.
	StageHPAEnough
	// StagePodCreated … StagePodFirstRequest follow the first pod added
	// after the step.
	StagePodCreated
	StagePodRunning
	StagePodReady
	StagePodInSlice
	StagePodInIstiod
	StagePodFirstRequest
	// StageCapacity: the pods the step needs are Ready.
	StageCapacity
	stageCount
)

var stageNames = [stageCount]string{
	"scrape with the new rate",
	"artt-scaler raised its answer",
	"HPA read the raised metric",
	"HPA scaled up",
	"HPA asked for the pods needed",
	"first new pod created",
	"… running",
	"… Ready",
	"… in an EndpointSlice",
	"… in istiod's endpoints",
	"… first request arrived",
	"pods needed Ready",
}

func (s Stage) String() string { return stageNames[s] }

// Stages are every stage, in the pipeline's order.
func Stages() []Stage {
	out := make([]Stage, stageCount)
	for i := range out {
		out[i] = Stage(i)
	}
	return out
}

// StepTimeline is when each stage of the pipeline first saw one step up of
// one autoscaled component, in seconds after the step (NaN: not within the
// run), with what it saw.
type StepTimeline struct {
	StepCapacity
	// Midpoint is the arrivals per second at the component halfway
	// through the step: a scrape past it has seen the step.
	Midpoint float64
	// Before is the component's pod count when the step came.
	Before  int
	Seconds [stageCount]float64
	Detail  [stageCount]string
}

// NewStepTimeline is a step's timeline with no stage seen yet.
func NewStepTimeline(step StepCapacity, midpoint float64) StepTimeline {
	t := StepTimeline{StepCapacity: step, Midpoint: midpoint}
	for i := range t.Seconds {
		t.Seconds[i] = math.NaN()
	}
	return t
}

// Saw records that stage first saw the step at run time at (seconds into
// the run); a time before the step, or a stage already seen, is ignored.
func (t *StepTimeline) Saw(stage Stage, at float64, detail string) {
	if at < t.At || !math.IsNaN(t.Seconds[stage]) {
		return
	}
	t.Seconds[stage], t.Detail[stage] = at-t.At, detail
}

// Seen reports whether stage has seen the step.
func (t *StepTimeline) Seen(stage Stage) bool { return !math.IsNaN(t.Seconds[stage]) }

// PodLife is when a pod added by the autoscaler passed each of its
// stages, in seconds into the run (NaN: not reached).
type PodLife struct {
	Name                                                 string
	Created, Running, Ready, InSlice, InIstiod, FirstReq float64
}

// SawFirstPod records the stages of the first pod created at or after the
// step.
func (t *StepTimeline) SawFirstPod(pods []PodLife) {
	first := -1
	for i, p := range pods {
		if p.Created >= t.At && (first < 0 || p.Created < pods[first].Created) {
			first = i
		}
	}
	if first < 0 {
		return
	}
	p := pods[first]
	for stage, at := range map[Stage]float64{StagePodCreated: p.Created, StagePodRunning: p.Running, StagePodReady: p.Ready,
		StagePodInSlice: p.InSlice, StagePodInIstiod: p.InIstiod, StagePodFirstRequest: p.FirstReq} {
		if !math.IsNaN(at) {
			t.Saw(stage, at, p.Name)
		}
	}
}

// ScalerInputs are what artt-scaler read for one answer, and the answer.
type ScalerInputs struct {
	// Arrivals per second and CPU cores, the newest of the range it read;
	// ReadyPods the pods whose CPU requests it counted.
	Arrivals, CPU, ReadyPods float64
	// Value and Target are the metric's value and target; PerPod marks
	// an AverageValue metric (the pods form), whose target is per pod.
	Value, Target float64
	PerPod        bool
}

// AskedPods is the count the answer asks the HPA for, by the HPA's rule
// before its tolerance: ceil(value ÷ target) for an AverageValue metric,
// ceil(value ÷ target × Ready pods) for a Value one.
func (in ScalerInputs) AskedPods() int {
	if in.PerPod {
		return int(math.Ceil(in.Value / in.Target))
	}
	return int(math.Ceil(in.Value / in.Target * in.ReadyPods))
}

func (in ScalerInputs) String() string {
	return fmt.Sprintf("arrivals %.1f/s, CPU %.2f cores, %.0f Ready pods: asks for %d", in.Arrivals, in.CPU, in.ReadyPods, in.AskedPods())
}
