// Package deploy_test builds the kustomizations under deploy/ with
// kustomize's own library (what `kubectl apply -k` runs) and checks what an
// operator relies on: probes, resources, a non-root read-only container, a
// headless Service, and no Kubernetes credentials for the scaler.
package deploy_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func build(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

func find(t *testing.T, m resmap.ResMap, kind, name string) *yaml.RNode {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == kind && r.GetName() == name {
			n, err := yaml.Parse(r.MustYaml())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s %s in the build", kind, name)
	return nil
}

func field(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil || v == nil {
		return ""
	}
	return strings.TrimSpace(v.MustString())
}

func TestScalerBase(t *testing.T) {
	for _, dir := range []string{".", "scaler", "examples/scaler-mtls"} {
		t.Run(dir, func(t *testing.T) {
			m := build(t, dir)
			d := find(t, m, "Deployment", "artt-scaler")
			c := "spec.template.spec.containers.[name=artt-scaler]"
			path := func(p string) []string { return strings.Split(c+"."+p, ".") }
			checks := []struct{ path, want, why string }{
				{"metadata.namespace", "artt-system", "installed in its own namespace"},
				{"spec.template.spec.securityContext.runAsNonRoot", "true", "non-root"},
				{"spec.template.spec.automountServiceAccountToken", "false", "the scaler never calls the Kubernetes API"},
			}
			for _, ck := range checks {
				if got := field(t, d, strings.Split(ck.path, ".")...); got != ck.want {
					t.Errorf("%s = %q, want %q (%s)", ck.path, got, ck.want, ck.why)
				}
			}
			containerChecks := []struct{ path, want string }{
				{"securityContext.readOnlyRootFilesystem", "true"},
				{"securityContext.allowPrivilegeEscalation", "false"},
				{"resources.requests.cpu", "50m"},
				{"resources.limits.memory", "256Mi"},
				{"livenessProbe.httpGet.path", "/healthz"},
				{"image", "ghcr.io/artt-dev/artt-scaler:v0.1.0"},
			}
			for _, ck := range containerChecks {
				if got := field(t, d, path(ck.path)...); got != ck.want {
					t.Errorf("container %s = %q, want %q", ck.path, got, ck.want)
				}
			}
			if field(t, d, path("readinessProbe.grpc.port")...) == "" && field(t, d, path("readinessProbe.httpGet.path")...) != "/readyz" {
				t.Error("no readiness probe (gRPC health or /readyz)")
			}
			svc := find(t, m, "Service", "artt-scaler")
			if got := field(t, svc, "spec", "clusterIP"); got != "None" {
				t.Errorf("Service clusterIP = %q, want None (headless, so KEDA's round robin reaches every pod)", got)
			}
			for _, r := range m.Resources() {
				if slices.Contains([]string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}, r.GetKind()) && strings.HasPrefix(r.GetName(), "artt-scaler") {
					t.Errorf("%s %s grants the scaler API access it does not use", r.GetKind(), r.GetName())
				}
			}
		})
	}
}

func TestScalerMutualTLSOverlay(t *testing.T) {
	m := build(t, "examples/scaler-mtls")
	d := find(t, m, "Deployment", "artt-scaler")
	args := field(t, d, "spec", "template", "spec", "containers", "[name=artt-scaler]", "args")
	for _, want := range []string{"--tls-cert-file=/etc/artt/tls/tls.crt", "--tls-key-file=/etc/artt/tls/tls.key", "--tls-client-ca-file=/etc/artt/tls/ca.crt"} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %s:\n%s", want, args)
		}
	}
	if got := field(t, d, "spec", "template", "spec", "volumes", "[name=tls]", "secret", "secretName"); got != "artt-scaler-tls" {
		t.Errorf("TLS volume secret = %q, want artt-scaler-tls", got)
	}
	if got := field(t, d, "spec", "template", "spec", "containers", "[name=artt-scaler]", "readinessProbe", "grpc"); got != "" {
		t.Errorf("readiness probe still uses plaintext gRPC under mutual TLS: %s", got)
	}
}

func TestTrafficBase(t *testing.T) {
	m := build(t, "traffic")
	d := find(t, m, "Deployment", "artt-traffic")
	c := []string{"spec", "template", "spec", "containers", "[name=artt-traffic]"}
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"spec", "replicas"}, "2"},
		{[]string{"metadata", "namespace"}, "artt-system"},
		{[]string{"spec", "template", "spec", "securityContext", "runAsNonRoot"}, "true"},
		{append(c, "securityContext", "readOnlyRootFilesystem"), "true"},
		{append(c, "readinessProbe", "httpGet", "path"), "/readyz"},
		{append(c, "livenessProbe", "httpGet", "path"), "/healthz"},
		{append(c, "image"), "ghcr.io/artt-dev/artt-traffic:v0.1.0"},
	}
	for _, ck := range checks {
		if got := field(t, d, ck.path...); got != ck.want {
			t.Errorf("%v = %q, want %q", ck.path, got, ck.want)
		}
	}
	for _, r := range m.Resources() {
		if r.GetKind() != "ClusterRole" && r.GetKind() != "Role" {
			continue
		}
		y, _ := r.AsYAML()
		text := string(y)
		if strings.Contains(text, "'*'") || strings.Contains(text, "\"*\"") || strings.Contains(text, "- '*'") {
			t.Errorf("%s %s uses a wildcard:\n%s", r.GetKind(), r.GetName(), text)
		}
		if strings.Contains(text, "secrets") {
			t.Errorf("%s %s grants access to secrets", r.GetKind(), r.GetName())
		}
	}
	find(t, m, "ClusterRole", "artt-traffic")
	find(t, m, "Role", "artt-traffic-leader-election")
}

// artt-traffic's roles grant exactly what it uses, no more: reading pods,
// nodes and Deployments, reading and applying DestinationRules, its own
// Lease and Events in its namespace, and there the topology ConfigMap. Cluster-wide, the only writes are to
// DestinationRules (ARTT's own or the user's, in any namespace with a
// managed Deployment); there is no delete, no update of another kind, no
// Secret and no wildcard.
func TestTrafficRBACIsExactlyWhatIsUsed(t *testing.T) {
	m := build(t, "traffic")
	want := map[string]map[string]bool{
		"ClusterRole/artt-traffic": {
			"/pods:get,list,watch": true, "/nodes:get,list,watch": true,
			"/services:get": true, "/namespaces:get": true, // --preflight reads them
			"apps/deployments:get,list,watch":                                  true,
			"networking.istio.io/destinationrules:get,list,watch,create,patch": true,
		},
		"Role/artt-traffic-leader-election": {
			"coordination.k8s.io/leases:get,list,watch,create,update,patch": true,
			"/events:create,patch": true,
		},
		"Role/artt-traffic-topology": {
			"/configmaps:create": true, "/configmaps:patch": true,
		},
	}
	got := map[string]map[string]bool{}
	for _, r := range m.Resources() {
		if r.GetKind() != "ClusterRole" && r.GetKind() != "Role" {
			continue
		}
		n, err := yaml.Parse(r.MustYaml())
		if err != nil {
			t.Fatal(err)
		}
		key := r.GetKind() + "/" + r.GetName()
		got[key] = map[string]bool{}
		rules, _ := n.Pipe(yaml.Lookup("rules"))
		elems, _ := rules.Elements()
		for _, rule := range elems {
			list := func(f string) []string {
				v, _ := rule.Pipe(yaml.Lookup(f))
				if v == nil {
					return nil
				}
				var out []string
				es, _ := v.Elements()
				for _, e := range es {
					out = append(out, strings.TrimSpace(e.MustString()))
				}
				return out
			}
			groups, resources, verbs := list("apiGroups"), list("resources"), list("verbs")
			for _, g := range groups {
				g = strings.Trim(g, `"'`)
				for _, res := range resources {
					got[key][g+"/"+res+":"+strings.Join(verbs, ",")] = true
				}
			}
		}
	}
	for role, rules := range want {
		for rule := range rules {
			if !got[role][rule] {
				t.Errorf("%s lacks %s, which artt-traffic uses", role, rule)
			}
		}
		for rule := range got[role] {
			if !rules[rule] {
				t.Errorf("%s grants %s, which artt-traffic does not use", role, rule)
			}
		}
	}
	for role := range got {
		if want[role] == nil {
			t.Errorf("unexpected role %s", role)
		}
	}
	if r := find(t, m, "Role", "artt-traffic-leader-election"); field(t, r, "metadata", "namespace") != "artt-system" {
		t.Error("the leader-election Role is not confined to artt-system")
	}
}

// Every object of deploy/scheduler is in artt-system except the RoleBinding
// that lets the scheduler's secure port read the authentication ConfigMap,
// which only works in kube-system, where that ConfigMap and Role live.
func TestSchedulerObjectsAreWhereTheyAct(t *testing.T) {
	m := build(t, "scheduler")
	for _, r := range m.Resources() {
		want := "artt-system"
		switch {
		case r.GetKind() == "ClusterRole" || r.GetKind() == "ClusterRoleBinding":
			want = ""
		case r.GetName() == "artt-scheduler-authentication-reader":
			want = "kube-system"
		}
		if got := r.GetNamespace(); got != want {
			t.Errorf("%s %s is in namespace %q, want %q", r.GetKind(), r.GetName(), got, want)
		}
	}
	cm := find(t, m, "Deployment", "artt-scheduler")
	if got := field(t, cm, "spec", "template", "spec", "volumes", "[name=config]", "configMap", "name"); !strings.HasPrefix(got, "artt-scheduler-config-") {
		t.Errorf("the scheduler mounts ConfigMap %q, want the generated artt-scheduler-config-<hash>", got)
	}
}
