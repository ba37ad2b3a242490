// Package charttest renders charts/artt with Helm's own Go SDK and checks it
// against the kustomize manifests under deploy/, which stay the reference:
// every object both produce must be the same object, every flag the chart
// passes must be one the binaries define, and the chart must install into
// a real kube-apiserver (envtest). It is a module of its own so that Helm's
// dependencies stay out of ARTT's.
package charttest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	chartDir  = "../artt"
	deployDir = "../../deploy"
	namespace = "artt-system"
)

// object is one rendered manifest, as generic YAML.
type object = map[string]any

func key(o object) string {
	md, _ := o["metadata"].(object)
	ns, _ := md["namespace"].(string) // "" for a cluster-scoped object
	return fmt.Sprintf("%s %s/%s", o["kind"], ns, md["name"])
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load %s: %v", chartDir, err)
	}
	return ch
}

// render is `helm template` of the chart into namespace with values set
// over the chart's defaults, keyed by kind, namespace and name.
func render(t *testing.T, values map[string]any) map[string]object {
	t.Helper()
	ch := loadChart(t)
	vals, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: "artt", Namespace: namespace, IsInstall: true, Revision: 1},
		chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	out := map[string]object{}
	for name, text := range files {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(text) {
			var o object
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s does not parse: %v\n%s", name, err, doc)
			}
			if len(o) == 0 {
				continue
			}
			if _, dup := out[key(o)]; dup {
				t.Fatalf("%s rendered twice", key(o))
			}
			out[key(o)] = o
		}
	}
	return out
}

// kustomize builds dir as `kubectl apply -k dir` would, objects without a
// namespace placed in ns (as `kubectl apply -n ns` would place them).
func kustomize(t *testing.T, dir, ns string) map[string]object {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(deployDir, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out := map[string]object{}
	for _, r := range m.Resources() {
		o, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		if md := o["metadata"].(object); md["namespace"] == nil && o["kind"] != "Namespace" && !clusterScoped[o["kind"].(string)] {
			md["namespace"] = ns
		}
		out[key(o)] = o
	}
	return out
}

var clusterScoped = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true, "Namespace": true}

// helmOnly are the labels the chart adds that kustomize cannot know.
var helmOnly = []string{"app.kubernetes.io/managed-by", "helm.sh/chart"}

// hashedName is a configMapGenerator name: the base and a content hash.
var hashedName = regexp.MustCompile(`^(artt-scheduler-config)-[a-z0-9]{10}$`)

// normalise removes what legitimately differs between a Helm release and a
// kustomize build of the same objects: Helm's own labels, the checksum that
// rolls the scheduler where kustomize hashes the ConfigMap's name, and the
// text form of embedded YAML and JSON files (compared parsed).
func normalise(t *testing.T, o object) object {
	t.Helper()
	o = deepCopy(o)
	md := o["metadata"].(object)
	if labels, ok := md["labels"].(object); ok {
		for _, l := range helmOnly {
			delete(labels, l)
		}
	}
	if m := hashedName.FindStringSubmatch(fmt.Sprint(md["name"])); m != nil {
		md["name"] = m[1]
	}
	if o["kind"] == "ConfigMap" {
		data := o["data"].(object)
		for k, v := range data {
			var parsed any
			if err := yaml.Unmarshal([]byte(v.(string)), &parsed); err != nil {
				t.Fatalf("%s data %s: %v", key(o), k, err)
			}
			data[k] = parsed
		}
	}
	if o["kind"] == "Deployment" {
		tmpl := o["spec"].(object)["template"].(object)
		if a, ok := tmpl["metadata"].(object)["annotations"].(object); ok {
			delete(a, "checksum/config")
			if len(a) == 0 {
				delete(tmpl["metadata"].(object), "annotations")
			}
		}
		for _, v := range asList(tmpl["spec"].(object)["volumes"]) {
			if cm, ok := v.(object)["configMap"].(object); ok {
				if m := hashedName.FindStringSubmatch(fmt.Sprint(cm["name"])); m != nil {
					cm["name"] = m[1]
				}
			}
		}
	}
	return o
}

func asList(v any) []any { l, _ := v.([]any); return l }

func deepCopy(o object) object {
	b, err := yaml.Marshal(o)
	if err != nil {
		panic(err)
	}
	var c object
	if err := yaml.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return c
}

// sameObjects checks that every object of want is in got, equal after
// normalisation, and that got has no object want lacks except those named
// in extra. It returns how many objects were compared.
func sameObjects(t *testing.T, got, want map[string]object, extra ...string) int {
	t.Helper()
	gotN := map[string]object{}
	for _, o := range got {
		n := normalise(t, o)
		gotN[key(n)] = n
	}
	compared := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		w := normalise(t, want[k])
		g, ok := gotN[key(w)]
		if !ok {
			if w["kind"] == "Namespace" {
				continue // Helm installs into a namespace, `helm install --create-namespace`
			}
			t.Errorf("the chart lacks %s", key(w))
			continue
		}
		compared++
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s differs (- kustomize, + chart):\n%s", key(w), lineDiff(w, g))
		}
		delete(gotN, key(w))
	}
	for k := range gotN {
		if !slices.Contains(extra, k) {
			t.Errorf("the chart renders %s, which the kustomize manifests do not have", k)
		}
	}
	return compared
}

func TestDefaultsEqualTheKustomizeManifests(t *testing.T) {
	n := sameObjects(t, render(t, nil), kustomize(t, ".", namespace))
	t.Logf("%d objects equal to deploy/'s", n)
}

func TestSchedulerEqualsDeployScheduler(t *testing.T) {
	want := kustomize(t, ".", namespace)
	maps.Copy(want, kustomize(t, "scheduler", namespace))
	n := sameObjects(t, render(t, map[string]any{"scheduler": map[string]any{"enabled": true}}), want)
	t.Logf("%d objects equal to deploy/'s and deploy/scheduler's", n)
}

func TestMutualTLSEqualsTheExampleOverlay(t *testing.T) {
	got := render(t, map[string]any{"scaler": map[string]any{"tlsSecretName": "artt-scaler-tls"}, "traffic": map[string]any{"enabled": false}})
	want := map[string]object{}
	for k, o := range kustomize(t, "examples/scaler-mtls", namespace) {
		if o["metadata"].(object)["namespace"] == namespace || o["kind"] == "Namespace" {
			want[k] = o // the example's TriggerAuthentication and ScaledObject are the user's
		}
	}
	sameObjects(t, got, want)
}

// With the monitoring objects on, the chart installs deploy/monitoring's
// rules and dashboard and starts artt-traffic on the recorded series.
func TestMonitoringInstallsTheRulesAndReadsThem(t *testing.T) {
	got := render(t, map[string]any{"monitoring": map[string]any{"enabled": true, "namespace": "monitoring"}})
	want := kustomize(t, ".", namespace)
	for k, o := range kustomize(t, "monitoring", "monitoring") {
		want[k] = o
	}
	traffic := "Deployment artt-system/artt-traffic"
	args := containerArgs(got[traffic])
	if !slices.Contains(args, "--recording-rules") {
		t.Errorf("artt-traffic's args %v lack --recording-rules with the recording rules installed", args)
	}
	// Apart from that flag, every object is deploy/'s and deploy/monitoring's.
	withFlag := deepCopy(want[traffic])
	c := asList(asList(withFlag["spec"].(object)["template"].(object)["spec"].(object)["containers"]))[0].(object)
	c["args"] = append(asList(c["args"]), "--recording-rules")
	want[traffic] = withFlag
	n := sameObjects(t, got, want)
	t.Logf("%d objects equal to deploy/'s and deploy/monitoring's", n)
}

func containerArgs(o object) []string {
	var out []string
	for _, c := range asList(o["spec"].(object)["template"].(object)["spec"].(object)["containers"]) {
		for _, a := range asList(c.(object)["args"]) {
			out = append(out, a.(string))
		}
	}
	return out
}

// flagNames reads the flags a binary's main.go defines.
func flagNames(t *testing.T, binary string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../cmd", binary, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`fs\.[A-Za-z0-9]+\([^"]*"([a-z0-9-]+)"`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	return names
}

// Every value the chart turns into a flag must name a flag the binary has:
// a chart value renamed in the binary but not here would crash-loop pods.
func TestEveryRenderedFlagIsTheBinarysFlag(t *testing.T) {
	got := render(t, map[string]any{
		"scaler": map[string]any{"tlsSecretName": "s", "allowQueryOverrides": true,
			"allowedPrometheus": []any{"http://thanos.monitoring:9090"}},
		"monitoring": map[string]any{"enabled": true},
	})
	got2 := render(t, nil)
	for _, c := range []struct{ object, binary string }{
		{"Deployment artt-system/artt-scaler", "artt-scaler"},
		{"Deployment artt-system/artt-traffic", "artt-traffic"},
	} {
		known := flagNames(t, c.binary)
		if len(known) < 10 {
			t.Fatalf("read only %d flags of %s: the pattern no longer matches main.go", len(known), c.binary)
		}
		for _, a := range append(containerArgs(got[c.object]), containerArgs(got2[c.object])...) {
			name := strings.SplitN(strings.TrimPrefix(a, "--"), "=", 2)[0]
			if !slices.Contains(known, name) {
				t.Errorf("%s passes %s: %s has no flag %q", c.object, a, c.binary, name)
			}
		}
	}
}

// lineDiff lists the lines of a's and b's YAML that the other lacks.
func lineDiff(a, b object) string {
	al, bl := yamlLines(a), yamlLines(b)
	var out []string
	for _, l := range al {
		if !slices.Contains(bl, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

func yamlLines(o object) []string {
	b, _ := yaml.Marshal(o)
	return strings.Split(string(b), "\n")
}

// The NetworkPolicy's peers are the values', and one replica gets neither a
// disruption budget (it would block every drain) nor a spread.
func TestScalerPeersAndReplicaGuardsFollowTheValues(t *testing.T) {
	peer := object{"namespaceSelector": object{"matchLabels": object{"team": "autoscaling"}}, "podSelector": object{"matchLabels": object{"app": "my-keda"}}}
	got := render(t, map[string]any{
		"scaler":  map[string]any{"replicas": 1, "networkPolicy": map[string]any{"kedaPeers": []any{peer}}},
		"traffic": map[string]any{"replicas": 1},
	})
	np := got["NetworkPolicy artt-system/artt-scaler"]
	if np == nil {
		t.Fatal("no NetworkPolicy rendered")
	}
	from := np["spec"].(object)["ingress"].([]any)[0].(object)["from"]
	if !reflect.DeepEqual(from, []any{peer}) {
		t.Errorf("the gRPC port admits %v, want the values' %v", from, peer)
	}
	for _, c := range []string{"scaler", "traffic"} {
		if _, ok := got["PodDisruptionBudget artt-system/artt-"+c]; ok {
			t.Errorf("artt-%s at one replica has a PodDisruptionBudget", c)
		}
		spec := got["Deployment artt-system/artt-"+c]["spec"].(object)["template"].(object)["spec"].(object)
		if _, ok := spec["topologySpreadConstraints"]; ok {
			t.Errorf("artt-%s at one replica has a topology spread", c)
		}
	}
	off := render(t, map[string]any{"scaler": map[string]any{"networkPolicy": map[string]any{"enabled": false}}})
	if _, ok := off["NetworkPolicy artt-system/artt-scaler"]; ok {
		t.Error("networkPolicy.enabled=false still renders the NetworkPolicy")
	}
}

// checkScaledObjects gives artt-scaler the flag, a token and a ClusterRole
// that lists and watches ScaledObjects and nothing else; off, none of them.
func TestScaledObjectCheckGetsOnlyTheRBACItUses(t *testing.T) {
	on := render(t, map[string]any{"scaler": map[string]any{"checkScaledObjects": true}})
	role := on["ClusterRole /artt-scaler"]
	if role == nil {
		t.Fatal("no ClusterRole for artt-scaler")
	}
	want := []any{object{"apiGroups": []any{"keda.sh"}, "resources": []any{"scaledobjects"}, "verbs": []any{"list", "watch"}}}
	if !reflect.DeepEqual(role["rules"], want) {
		t.Errorf("artt-scaler's rules %v, want %v", role["rules"], want)
	}
	pod := on["Deployment artt-system/artt-scaler"]["spec"].(object)["template"].(object)["spec"].(object)
	args := fmt.Sprint(pod["containers"].([]any)[0].(object)["args"])
	if pod["automountServiceAccountToken"] != true || !strings.Contains(args, "--check-scaledobjects") {
		t.Errorf("token %v, args %s: want a token and --check-scaledobjects", pod["automountServiceAccountToken"], args)
	}
	off := render(t, nil)
	for _, k := range []string{"ClusterRole /artt-scaler", "ClusterRoleBinding /artt-scaler"} {
		if _, ok := off[k]; ok {
			t.Errorf("%s rendered with checkScaledObjects off", k)
		}
	}
}
