package controller

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/deploy/monitoring"
	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/testcluster"
)

// The fleet: 500 nodes in 10 zones, 10 namespaces of 10 managed
// Deployments each calling the next (d0 → d1 → … → d9), every Deployment 100
// pods, placed by kube-scheduler's default profile: 10,000 pods, 90 routed
// components.
const (
	fleetNodes       = 500
	fleetZones       = 10
	fleetNamespaces  = 10
	fleetDeployments = 10
	fleetPods        = 100
)

func fleetNode(i int) string { return fmt.Sprintf("fleet-n%03d", i) }

func fleetLocality(i int) string {
	return fmt.Sprintf("r1/z%d/%s", i%fleetZones, fleetNode(i))
}

// fleetPlacement is where the scheduler put each pod: the node's index by
// "namespace/pod".
type fleetPlacement map[string]int

// fewest is, among the nodes routed accepts, the one holding fewest of a
// Deployment's pods, and those pods' names (none when no node is accepted).
func (f fleetPlacement) fewest(ns, dep string, routed func(node int) bool) (node int, pods []string) {
	on := map[int][]string{}
	for p := range fleetPods {
		name := fmt.Sprintf("%s-%d", dep, p)
		n := f[ns+"/"+name]
		on[n] = append(on[n], name)
	}
	node = -1
	for _, n := range slices.Sorted(maps.Keys(on)) {
		if routed(n) && (node < 0 || len(on[n]) < len(on[node])) {
			node = n
		}
	}
	return node, on[node]
}

// TestFleetScale measures artt-traffic at fleet size on envtest's real
// kube-apiserver, with a Prometheus of its own scraping an exporter that
// serves every pod's cAdvisor and Istio series and the node probes: the
// cycle split into collect, read, allocate and write, the memory the
// controller holds, the DestinationRule writes per cycle, and the time
// from a pod deletion to the rule without it. Building the fleet takes
// minutes, so it runs only with ARTT_FLEET=1 (make bench-fleet).
func TestFleetScale(t *testing.T) {
	if os.Getenv("ARTT_FLEET") == "" {
		t.Skip("set ARTT_FLEET=1 to build a 10,000-pod fleet (make bench-fleet)")
	}
	needCluster(t)
	built := time.Now()
	placement := buildFleet(t)
	t.Logf("fleet built in %s: %d nodes run by kwok, %d managed Deployments, %d pods placed by artt-scheduler (default profile)",
		time.Since(built).Round(time.Second), fleetNodes, fleetNamespaces*fleetDeployments, len(placement))

	exp := promtest.NewExporter(fleetSeries(placement))
	dir := t.TempDir()
	promStart := time.Now()
	fleetProm, stopProm, err := promtest.StartWithExporter(dir, exp, 5*time.Second,
		`istio_requests_total{namespace="fleet-9",reporter="destination"}`, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer stopProm()
	t.Logf("Prometheus ready in %s", time.Since(promStart).Round(time.Second))

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	queries := testQueries()
	in := measureFleet(t, "queries evaluated at each collection", fleetProm, &queries)

	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("heap in use: %.0f MiB before the controller started, %.0f MiB after four cycles (+%.0f MiB: informer cache of 10,000 pods and 500 nodes, measurements, policy state)",
		float64(before.HeapInuse)/(1<<20), float64(after.HeapInuse)/(1<<20), (float64(after.HeapInuse)-float64(before.HeapInuse))/(1<<20))

	// A node emptied of a Deployment: it must leave the rule. The victims
	// are the Deployment's pods on the routed node that holds fewest of
	// them (the scheduler may put several on one node, and while one stays
	// the node rightly stays), deleted together.
	nsName, dep := "fleet-3", "d5"
	rule := func() map[string]map[string]uint32 {
		dr, err := getRule(nsName, RuleName(dep))
		if err != nil {
			return nil
		}
		return distribution(dr)
	}
	receivesNode := func(dist map[string]map[string]uint32, node int) bool {
		for _, to := range dist {
			if to[fleetLocality(node)] > 0 {
				return true
			}
		}
		return false
	}
	routed := rule()
	node, victims := placement.fewest(nsName, dep, func(node int) bool { return receivesNode(routed, node) })
	if len(victims) == 0 {
		t.Fatalf("%s/%s's rule sends to none of the nodes its pods are on", nsName, dep)
	}
	reactionBefore := histograms(t, in, "artt_traffic_reaction_seconds")[""]
	var deletes []func() error
	for _, name := range victims {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: nsName}}
		deletes = append(deletes, func() error { return k8s.Delete(testScope, pod, client.GracePeriodSeconds(0)) })
	}
	run(t, deletes)
	took := waitFor(t, 30*time.Second, fmt.Sprintf("%s left the rule once its %d pods of %s were deleted", fleetNode(node), len(victims), dep), func() bool {
		dist := rule()
		return dist != nil && !receivesNode(dist, node)
	})
	// The reaction is recorded once every rule of the reallocation is
	// written, a little after the one watched here.
	var reaction histogram
	waitFor(t, 30*time.Second, "the deletion's reaction recorded", func() bool {
		reaction = histograms(t, in, "artt_traffic_reaction_seconds")[""].since(reactionBefore)
		return reaction.count > 0
	})
	t.Logf("%d pods deleted, node out of the rule: %s from the delete calls (aim: under 1 s); artt_traffic_reaction_seconds, from the event seen to every rule written: %d reactions, mean %.0f ms",
		len(victims), took.Round(time.Millisecond), reaction.count, 1000*reaction.mean())
	in.stop()

	// The same fleet read through deploy/monitoring's recording rules,
	// evaluated by the same Prometheus every 15 s (the probe job left out,
	// as testQueries leaves it out).
	_, rules, err := monitoring.RecordingRules()
	if err != nil {
		t.Fatal(err)
	}
	if err := fleetProm.LoadRules(strings.ReplaceAll(rules, `{job="artt-node-probe"}`, "")); err != nil {
		t.Fatal(err)
	}
	recorded := RecordedQueries()
	if err := fleetProm.WaitForSamples(recorded.Delay, 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	measureFleet(t, "recording rules (--recording-rules)", fleetProm, &recorded).stop()
}

// measureFleet starts artt-traffic on the fleet with the queries and
// reports its first cycle and three periodic cycles after it: the phases'
// mean over the periodic ones, the rules written, and the CPU Prometheus
// spent meanwhile. It returns the running instance.
func measureFleet(t *testing.T, label string, prom *promtest.Server, queries *Queries) *instance {
	t.Helper()
	in := start(t, instanceOptions{interval: 15 * time.Second, promURL: prom.URL, queries: queries, collectTimeout: 20 * time.Second, quiet: true})
	routed := fleetNamespaces * (fleetDeployments - 1)
	writes := func(result string) float64 {
		return collectorTotal(t, in.c.tel.writes, "artt_traffic_destinationrule_writes_total", map[string]string{"result": result})
	}
	cycles := func() float64 {
		return collectorTotal(t, in.c.tel.cycle, "artt_traffic_cycle_duration_seconds", map[string]string{"trigger": "cycle"})
	}
	first := waitEvery(t, time.Second, 3*time.Minute, "every routed component's DestinationRule written", func() bool {
		return writes("written") >= float64(routed)
	})
	t.Logf("%s: first cycle, %d DestinationRules written %s after the start", label, routed, first.Round(time.Millisecond))

	// Three more periodic cycles with nothing changed.
	writtenAfterFirst, unchangedAfterFirst := writes("written"), writes("unchanged")
	cyclesBefore := cycles()
	phasesBefore := histograms(t, in, "artt_traffic_phase_duration_seconds")
	cycleBefore := histograms(t, in, "artt_traffic_cycle_duration_seconds")["cycle"]
	cpuBefore, wallBefore := cpuAccount(t, prom), time.Now()
	// Each cycle on its own: the mean hides that a policy still stepping
	// toward its targets rewrites more rules than one that has settled.
	lastCycle, lastWritten, lastPhases := cycleBefore, writtenAfterFirst, phasesBefore
	for i := 1; i <= 3; i++ {
		waitEvery(t, time.Second, time.Minute, fmt.Sprintf("periodic cycle %d", i), func() bool {
			return cycles() >= cyclesBefore+float64(i)
		})
		now, written := histograms(t, in, "artt_traffic_cycle_duration_seconds")["cycle"], writes("written")
		phases := histograms(t, in, "artt_traffic_phase_duration_seconds")
		var split []string
		for _, p := range []string{"collect", "allocate", "write"} {
			split = append(split, fmt.Sprintf("%s %.0f ms", p, 1000*phases[p].since(lastPhases[p]).sum))
		}
		t.Logf("%s: periodic cycle %d took %.0f ms (%s) and rewrote %.0f DestinationRules",
			label, i, 1000*now.since(lastCycle).mean(), strings.Join(split, ", "), written-lastWritten)
		lastCycle, lastWritten, lastPhases = now, written, phases
	}
	cpuAfter, wall := cpuAccount(t, prom), time.Since(wallBefore)
	steady := cycles() - cyclesBefore
	// Reallocations triggered by events between the cycles count too: the
	// per-cycle lines above are each cycle's own.
	t.Logf("%s: %.0f periodic cycles; over them, with any reallocation between them, DestinationRules written %.0f and left unchanged %.0f",
		label, steady, writes("written")-writtenAfterFirst, writes("unchanged")-unchangedAfterFirst)
	// Where the machine's time went while they ran: a cycle that waits is
	// waiting on these processes.
	spent, total := make([]string, 0, len(cpuAfter)), 0.0
	for _, p := range cpuProcesses {
		d := cpuAfter[p] - cpuBefore[p]
		total += d
		spent = append(spent, fmt.Sprintf("%s %.2f s", p, d))
	}
	t.Logf("%s: CPU over them: %s; %.1f s in all, of the %.1f s that %d cores offered in %.1f s",
		label, strings.Join(spent, ", "), total, wall.Seconds()*float64(runtime.NumCPU()), runtime.NumCPU(), wall.Seconds())
	phases := histograms(t, in, "artt_traffic_phase_duration_seconds")
	for _, p := range []string{"collect", "read", "allocate", "write"} {
		h := phases[p].since(phasesBefore[p])
		t.Logf("%s: phase %-8s mean %7.1f ms over %d", label, p, 1000*h.mean(), h.count)
	}
	cycle := histograms(t, in, "artt_traffic_cycle_duration_seconds")["cycle"].since(cycleBefore)
	// The aims (a periodic cycle under 1 s, a deletion reflected under 1 s)
	// are reported, not asserted: timings depend on the machine.
	t.Logf("%s: periodic cycle mean %.1f ms over %d (aim: under 1 s)", label, 1000*cycle.mean(), cycle.count)
	if cycle.count == 0 {
		t.Errorf("%s: no periodic cycle recorded", label)
	}
	return in
}

// cpuProcesses are the processes cpuAccount reads, in report order.
var cpuProcesses = []string{"Prometheus", "kube-apiserver", "etcd", "test process (artt-traffic, the exporter)"}

// cpuAccount reads the CPU seconds each process sharing the machine has
// used so far: Prometheus, kube-apiserver and etcd from their own
// process_cpu_seconds_total, this process from getrusage.
func cpuAccount(t *testing.T, prom *promtest.Server) map[string]float64 {
	t.Helper()
	out := make(map[string]float64, len(cpuProcesses))
	var err error
	if out[cpuProcesses[0]], err = prom.CPUSeconds(); err != nil {
		t.Fatal(err)
	}
	apiClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out[cpuProcesses[1]], err = promtest.ProcessCPUSeconds(apiClient, strings.TrimSuffix(cfg.Host, "/")+"/metrics"); err != nil {
		t.Fatal(err)
	}
	if out[cpuProcesses[2]], err = promtest.ProcessCPUSeconds(http.DefaultClient, strings.TrimSuffix(etcdURL, "/")+"/metrics"); err != nil {
		t.Fatal(err)
	}
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		t.Fatal(err)
	}
	out[cpuProcesses[3]] = time.Duration(self.Utime.Nano() + self.Stime.Nano()).Seconds()
	return out
}

// buildFleet creates the nodes (for kwok, which kube-controller-manager's
// node lifecycle controller then lifts the not-ready taint of), the
// namespaces, the Deployments and their pods, unbound: artt-scheduler binds
// them and kwok marks them Running and Ready. It returns where each went.
func buildFleet(t *testing.T) fleetPlacement {
	t.Helper()
	startFleetComponents(t)
	var jobs []func() error
	for i := range fleetNodes {
		jobs = append(jobs, func() error {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fleetNode(i), Annotations: testcluster.KwokAnnotation(), Labels: map[string]string{
				"kubernetes.io/hostname": fleetNode(i), RegionLabel: "r1", ZoneLabel: fmt.Sprintf("z%d", i%fleetZones), SubzoneLabel: fleetNode(i),
			}}}
			if err := k8s.Create(testScope, n); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
			return nil
		})
	}
	run(t, jobs)
	jobs = nil
	for ns := range fleetNamespaces {
		nsName := fmt.Sprintf("fleet-%d", ns)
		if err := k8s.Create(testScope, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		for d := range fleetDeployments {
			name := fmt.Sprintf("d%d", d)
			labels := map[string]string{"app": name}
			if err := k8s.Create(testScope, managedDeployment(nsName, name)); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			for p := range fleetPods {
				jobs = append(jobs, func() error {
					pod := &corev1.Pod{
						ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", name, p), Namespace: nsName, Labels: labels},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{
							Name: "app", Image: "example/app",
							Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
						}}},
					}
					return k8s.Create(testScope, pod)
				})
			}
		}
	}
	run(t, jobs)
	want := fleetNamespaces * fleetDeployments * fleetPods
	placement := fleetPlacement{}
	waitFor(t, 15*time.Minute, fmt.Sprintf("%d pods bound and Ready", want), func() bool {
		var pods corev1.PodList
		if err := k8s.List(testScope, &pods); err != nil {
			return false
		}
		clear(placement)
		for _, p := range pods.Items {
			var i int
			if _, err := fmt.Sscanf(p.Spec.NodeName, "fleet-n%d", &i); err == nil && podReady(p) {
				placement[p.Namespace+"/"+p.Name] = i
			}
		}
		return len(placement) == want
	})
	return placement
}

// startFleetComponents runs, against this package's envtest, what a real
// cluster would run for the fleet: kwok as the nodes' kubelets,
// artt-scheduler with kube-scheduler's default profile, and
// kube-controller-manager's node lifecycle controller (from ARTT_E2E_ASSETS,
// hack/build-e2e-binaries.sh).
func startFleetComponents(t *testing.T) {
	t.Helper()
	assets := os.Getenv("ARTT_E2E_ASSETS")
	if assets == "" {
		t.Fatal("ARTT_E2E_ASSETS is not set: the fleet needs kwok and kube-controller-manager (hack/build-e2e-binaries.sh)")
	}
	dir := t.TempDir()
	kubeconfig, err := testcluster.AdminKubeconfig(testEnv, dir, "fleet-admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testScope)
	t.Cleanup(cancel)
	kcm, err := testcluster.StartProcess(ctx, dir, "kube-controller-manager", filepath.Join(assets, "kube-controller-manager"), nil,
		"--kubeconfig="+kubeconfig, "--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		"--controllers=node-lifecycle-controller", "--leader-elect=false", "--secure-port=0", "--kube-api-qps=200", "--kube-api-burst=400")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kcm)
	kwok, err := testcluster.StartKwok(ctx, dir, assets, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kwok)
	scheduler, err := testcluster.StartScheduler(ctx, dir, kubeconfig, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(scheduler)
	t.Cleanup(func() {
		if t.Failed() {
			for _, name := range []string{"kube-controller-manager", "kwok", "artt-scheduler"} {
				if b, err := os.ReadFile(filepath.Join(dir, name+".log")); err == nil {
					t.Logf("%s's log (last 4 KiB):\n%s", name, b[max(0, len(b)-4096):])
				}
			}
		}
	})
}

// run does the jobs on 16 workers and fails the test on the first error.
func run(t *testing.T, jobs []func() error) {
	t.Helper()
	work := make(chan func() error)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				errs <- j()
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fleetSeries are the exporter's series: per pod its CPU, its requests and
// a three-bucket latency histogram; the calls along each namespace's
// chain; and node probes within each zone plus one probe from every node
// to the first node of each other zone (a full mesh of 500 nodes is a
// quarter of a million probes; sampled probes are what a large cluster
// runs, and ARTT prices an unprobed link at the worst measured delay).
func fleetSeries(placement fleetPlacement) []promtest.Series {
	var s []promtest.Series
	for ns := range fleetNamespaces {
		nsName := fmt.Sprintf("fleet-%d", ns)
		for d := range fleetDeployments {
			rps := 1000.0 / fleetPods // each Deployment serves 1,000 requests per second
			for p := range fleetPods {
				pod := fmt.Sprintf("d%d-%d", d, p)
				node := placement[nsName+"/"+pod]
				cost := 0.004 * (1 + 0.5*float64(node%7)/6) // nodes differ in speed
				id := fmt.Sprintf(`namespace=%q,pod=%q`, nsName, pod)
				s = append(s,
					promtest.Series{Name: "container_cpu_usage_seconds_total", Labels: id + `,container="app"`, Rate: rps * cost},
					promtest.Series{Name: "istio_requests_total", Labels: `reporter="destination",` + id + `,response_code="200"`, Rate: rps},
					promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: `reporter="destination",` + id + `,le="10"`, Rate: 0.6 * rps},
					promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: `reporter="destination",` + id + `,le="50"`, Rate: 0.99 * rps},
					promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: `reporter="destination",` + id + `,le="+Inf"`, Rate: rps},
				)
			}
			if d > 0 {
				s = append(s, promtest.Series{Name: "istio_requests_total", Labels: fmt.Sprintf(
					`reporter="source",namespace=%q,pod="d%d-0",source_workload="d%d",source_workload_namespace=%q,destination_workload="d%d",destination_workload_namespace=%q,response_code="200"`,
					nsName, d-1, d-1, nsName, d, nsName), Rate: 1000})
			}
		}
	}
	for a := range fleetNodes {
		for b := range fleetNodes {
			sameZone := a%fleetZones == b%fleetZones
			if a == b || !(sameZone || b < fleetZones) {
				continue
			}
			oneWay := 0.3 + 0.2*float64((a*7+b*3)%10)/10
			if !sameZone {
				oneWay = 1.5 + float64((a+b)%10)/10
			}
			s = append(s, promtest.Series{Name: "probe_duration_seconds", Labels: fmt.Sprintf(`source_node=%q,target_node=%q`, fleetNode(a), fleetNode(b)), Value: 2 * oneWay / 1000})
		}
	}
	return s
}

type histogram struct {
	count uint64
	sum   float64
}

// since is what was observed after an earlier reading of the same
// histogram.
func (h histogram) since(earlier histogram) histogram {
	return histogram{h.count - earlier.count, h.sum - earlier.sum}
}

func (h histogram) mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// histograms reads a histogram family by its first label's value.
func histograms(t *testing.T, in *instance, name string) map[string]histogram {
	t.Helper()
	mfs, err := in.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]histogram{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			key := ""
			if len(m.GetLabel()) > 0 {
				key = m.GetLabel()[0].GetValue()
			}
			out[key] = histogram{m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()}
		}
	}
	return out
}
