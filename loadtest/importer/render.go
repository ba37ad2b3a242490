package importer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scenarioText is everything the scenario file says.
type scenarioText struct {
	o       Options
	comps   map[string]*component
	entry   string
	nodes   []node
	ingress ingressGateway
	delays  delays
	routing string
	trace   trace
	est     *estimates

	b strings.Builder
}

// line writes one line at an indentation, with an optional comment.
func (s *scenarioText) line(indent int, text, comment string) {
	s.b.WriteString(strings.Repeat("  ", indent))
	s.b.WriteString(text)
	if comment != "" {
		s.b.WriteString("  # ")
		s.b.WriteString(comment)
	}
	s.b.WriteByte('\n')
}

// str quotes a string for YAML (a JSON string is valid YAML).
func str(v string) string { return strconv.Quote(v) }

// num writes a number with up to four significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// ms writes a CPU time in milliseconds, to the microsecond.
func ms(seconds float64) string { return strconv.FormatFloat(seconds*1000, 'f', 3, 64) + "ms" }

// defaultTimeout is the client timeout assumed: Prometheus does not hold
// it, and Istio sets none by default.
const defaultTimeout = 5 * time.Second

func (s *scenarioText) render() []byte {
	o := s.o
	s.line(0, fmt.Sprintf("# Imported by artt-lab import from %s, namespace %s, %s up to %s.", o.Source, o.Namespace, o.Since, o.Until.UTC().Format(time.RFC3339)), "")
	s.line(0, "# Values marked \"estimated\" are not read from Prometheus; their comment says how they were chosen.", "")
	s.line(0, "name: "+str(o.Name), "")
	s.line(0, "description: "+str(fmt.Sprintf("Namespace %s as Prometheus saw it over the %s up to %s: today's routing and autoscaling against ARTT, least-request and the HPA's frontier.", o.Namespace, o.Since, o.Until.UTC().Format(time.RFC3339))), "")
	duration := time.Duration(len(s.trace.rates)-1) * s.trace.step
	s.line(0, "duration: "+duration.String(), fmt.Sprintf("the %d steps of the trace", len(s.trace.rates)))
	warmup := min(time.Minute, duration/10).Round(time.Second)
	s.line(0, "warmup: "+warmup.String(), "estimated: "+s.est.add("warmup", "%s left out of the statistics, as the shipped scenarios do (a tenth of a short period)", warmup))
	s.line(0, "seed: 1", "")

	s.renderCluster()
	autoscaled, cpuTarget := s.renderApplication()
	s.renderWorkload()
	s.renderRuns(autoscaled, cpuTarget)
	return []byte(s.b.String())
}

// renderCluster writes the nodes, the delays and the ingress.
func (s *scenarioText) renderCluster() {
	s.line(0, "cluster:", "")
	s.line(1, "# cores: the node's allocatable CPU (other namespaces' load is not modelled); speed: fitted from what", "")
	s.line(1, "# the same components cost per request on different nodes, the fastest at 1.", "")
	s.line(1, "nodes:", "")
	for _, n := range s.nodes {
		comment := ""
		if n.speedEstimate != "" {
			comment = "estimated: " + n.speedEstimate
		}
		s.line(2, fmt.Sprintf("- {name: %s, cores: %s, speed: %s}", str(n.name), num(n.cores), num(n.speed)), comment)
	}
	s.line(1, "delays:", "")
	defaultComment := "the median of the probed pairs"
	if s.delays.defaultEstimate != "" {
		defaultComment = "estimated: " + s.delays.defaultEstimate
	}
	s.line(2, "defaultMs: "+num(s.delays.defaultMs), defaultComment)
	if s.delays.jitterOf != "" {
		s.line(2, "jitterMs: "+num(s.delays.jitterMs), s.delays.jitterOf)
	}
	if len(s.delays.links) > 0 {
		s.line(2, "links:", "one-way: half the probes' mean round trip over the period")
		pairs := make([][2]string, 0, len(s.delays.links))
		for p := range s.delays.links {
			pairs = append(pairs, p)
		}
		slices.SortFunc(pairs, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
		for _, p := range pairs {
			s.line(3, fmt.Sprintf("- {from: %s, to: %s, ms: %s}", str(p[0]), str(p[1]), num(s.delays.links[p])), "")
		}
	}
	quoted := make([]string, len(s.ingress.nodes))
	for i, n := range s.ingress.nodes {
		quoted[i] = str(n)
	}
	s.line(1, "ingressNode: "+str(s.ingress.nodes[0]), "")
	ingressComment := "the gateway's pods, from kube_pod_info"
	if s.ingress.estimate != "" {
		ingressComment = "estimated: " + s.ingress.estimate
	}
	s.line(1, fmt.Sprintf("ingress: {replicas: %d, nodes: [%s]}", len(s.ingress.nodes), strings.Join(quoted, ", ")), ingressComment)
}

// renderApplication writes the components; it reports whether any is
// autoscaled, and the first HPA's CPU target (0 for none readable).
func (s *scenarioText) renderApplication() (autoscaled bool, cpuTarget float64) {
	s.line(0, "application:", "")
	s.line(1, "entry: "+str(s.entry), "the component called from outside the namespace")
	s.line(1, "components:", "")
	demandComment := "estimated: " + s.est.add("demand", "Prometheus holds no per-request CPU, so every component's is assumed exponential")
	for _, n := range slices.Sorted(maps.Keys(s.comps)) {
		c := s.comps[n]
		s.line(2, "- name: "+str(n), "")
		s.line(3, "cpuPerRequest: "+ms(c.cpuPerRequest), fmt.Sprintf("at speed 1, fitted; what it costs per request on its nodes differs by %.1f%% once their speeds are taken out", 100*c.spread))
		s.line(3, `demand: "exponential"`, demandComment)
		limit, limitComment := c.cpuLimit, "median of the pods' CPU limits"
		if math.IsNaN(limit) {
			limit = math.Inf(1)
			for _, p := range c.pods {
				for _, nd := range s.nodes {
					if nd.name == p.node {
						limit = min(limit, nd.cores)
					}
				}
			}
			limitComment = "estimated: " + s.est.add(n, "no CPU limit; the smallest of its nodes' allocatable CPU, %s cores", num(limit))
		}
		request, requestComment := c.cpuRequest, "median of the pods' CPU requests"
		if math.IsNaN(request) || request > limit {
			request = min(limit, 0.5)
			requestComment = "estimated: " + s.est.add(n, "no CPU request below its limit; %s cores", num(request))
		}
		s.line(3, "cpuLimit: "+num(limit), limitComment)
		s.line(3, "cpuRequest: "+num(request), requestComment)
		replicas := len(c.pods)
		placement := make([]string, len(c.pods))
		for i, p := range c.pods {
			placement[i] = str(p.node)
		}
		s.line(3, fmt.Sprintf("replicas: %d", replicas), "pods at the end of the period")
		s.line(3, "placement: ["+strings.Join(placement, ", ")+"]", "their nodes")
		if c.hpa != nil {
			autoscaled = true
			h := c.hpa
			what := "HPA " + h.name
			if h.keda {
				what = "KEDA ScaledObject " + h.scaledObjectOf + " (HPA " + h.name + ")"
			}
			s.line(3, "autoscale: true", what)
			s.line(3, fmt.Sprintf("minReplicas: %d", min(h.min, replicas)), "")
			s.line(3, fmt.Sprintf("maxReplicas: %d", max(h.max, replicas)), "")
			if h.cpuTarget > 0 && cpuTarget == 0 {
				cpuTarget = h.cpuTarget
			}
		}
		if len(c.calls) > 0 {
			to := make([]string, len(c.calls))
			per := make([]string, len(c.calls))
			for i, cl := range c.calls {
				to[i] = str(cl.to)
				per[i] = fmt.Sprintf("%s %.2f", cl.to, cl.perCall)
			}
			s.line(3, "calls: ["+strings.Join(to, ", ")+"]", "calls per request measured: "+strings.Join(per, ", ")+"; the lab makes one each")
		}
	}
	return autoscaled, cpuTarget
}

// renderWorkload writes the entry's arrivals: the trace, or a constant
// rate when it did not change.
func (s *scenarioText) renderWorkload() {
	lo, hi := s.trace.bounds()
	s.line(0, "workload:", "")
	if hi > lo {
		s.line(1, `type: "trace"`, "the entry's request rate, one row per step")
		s.line(1, fmt.Sprintf("trace: {file: %s, secondsPerRow: %s, minRate: %s, maxRate: %s}", str(s.o.TraceFile), num(s.trace.step.Seconds()),
			strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64)), "replayed in real time; lower secondsPerRow to compress it")
	} else {
		s.line(1, `type: "constant"`, "the entry's request rate did not change over the period")
		s.line(1, "rate: "+strconv.FormatFloat(hi, 'f', -1, 64), "")
	}
	s.line(1, "timeout: "+defaultTimeout.String(), "estimated: "+s.est.add("timeout", "the clients' timeout is not in Prometheus (Istio sets none by default); %s assumed", defaultTimeout))
}

// renderRuns writes today's routing and autoscaling, and the runs it is
// judged against.
func (s *scenarioText) renderRuns(autoscaled bool, cpuTarget float64) {
	s.line(0, "runs:", "")
	today := "least-request"
	if s.routing == "artt" {
		today = "artt"
	}
	autoscaling, targetComment := "", ""
	if autoscaled {
		autoscaling = ", autoscaling: hpa-cpu"
		if cpuTarget > 0 {
			autoscaling += ", cpuTarget: " + num(cpuTarget)
		} else {
			targetComment = s.est.add("autoscaling today", "no CPU utilisation target readable (a KEDA trigger or another metric); the CPU HPA at the lab's 70%% stands in for it")
		}
	}
	routingComment := "artt-traffic routes the namespace today"
	if today != "artt" {
		routingComment = "estimated: Istio's default least-request (DestinationRules are not in Prometheus)"
	}
	if targetComment != "" {
		routingComment += "; estimated: " + targetComment
	}
	s.line(1, fmt.Sprintf("- {name: today, routing: %s%s}", today, autoscaling), routingComment)
	if today != "least-request" || autoscaled {
		s.line(1, "- {name: least-request, routing: least-request}", "Istio's default, without autoscaling")
	}
	if today != "artt" || autoscaled {
		s.line(1, "- {name: artt, routing: artt}", "ARTT's routing, without autoscaling")
	}
	if autoscaled {
		s.line(1, "- {name: artt+artt-hpa, routing: artt, autoscaling: artt}", "ARTT's routing and ARTT-HPA")
		s.line(1, "- {name: least-request+artt-hpa, routing: least-request, autoscaling: artt}", "ARTT-HPA judged alone")
		s.line(0, "frontier:", "")
		s.line(1, "cpuTargets: [50, 60, 70, 80, 90]", "the CPU HPA's cost–latency frontier")
	}
}
