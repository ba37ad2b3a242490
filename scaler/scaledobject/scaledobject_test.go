package scaledobject

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/artt-dev/artt/scaler"
)

func shopWeb() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
		"metadata": map[string]any{"namespace": "shop", "name": "web"},
		"spec": map[string]any{
			"scaleTargetRef": map[string]any{"name": "web"},
			"triggers": []any{
				map[string]any{"type": "cpu", "metadata": map[string]any{"value": "70"}},
				map[string]any{"type": "external", "metadata": map[string]any{"scalerAddress": "artt-scaler.keda:9090", "window": int64(40)}},
			},
		},
	}}
}

// Read keeps each trigger's type and metadata as the API holds them, so a
// check can name a value that is not a string.
func TestReadKeepsEachTriggerAsTheAPIHoldsIt(t *testing.T) {
	so := Read(shopWeb())
	if so.Namespace != "shop" || so.Name != "web" || len(so.Triggers) != 2 {
		t.Fatalf("read %+v", so)
	}
	ext := so.Triggers[1]
	if ext.Type != "external" || ext.Metadata["scalerAddress"] != "artt-scaler.keda:9090" || ext.Metadata["window"] != int64(40) {
		t.Errorf("external trigger read as %+v", ext)
	}
	if got := Read(&unstructured.Unstructured{Object: map[string]any{}}); len(got.Triggers) != 0 {
		t.Errorf("an object without triggers read as %+v", got)
	}
}

// The cache keeps a ScaledObject's triggers and nothing else of its spec,
// and admits a call only for an object that exists and sends its external
// trigger to the call's scalerAddress.
func TestAdmitOnlyForAnExistingObjectThatCallsThisScaler(t *testing.T) {
	kept, err := keepTriggers(shopWeb())
	if err != nil {
		t.Fatal(err)
	}
	u := kept.(*unstructured.Unstructured)
	if _, found, _ := unstructured.NestedMap(u.Object, "spec", "scaleTargetRef"); found {
		t.Error("the cache keeps the scaleTargetRef")
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(u); err != nil {
		t.Fatal(err)
	}
	l := &Lister{indexer: indexer}
	var _ scaler.Admitter = l
	for _, c := range []struct {
		namespace, name, address string
		want                     codes.Code
	}{
		{"shop", "web", "artt-scaler.keda:9090", codes.OK},
		{"shop", "web", "other-scaler.keda:9090", codes.PermissionDenied},
		{"shop", "cart", "artt-scaler.keda:9090", codes.PermissionDenied},
		{"billing", "web", "artt-scaler.keda:9090", codes.PermissionDenied},
	} {
		err := l.Admit(c.namespace, c.name, map[string]string{"scalerAddress": c.address})
		if got := status.Code(err); got != c.want {
			t.Errorf("%s/%s via %s: %v, want %v", c.namespace, c.name, c.address, err, c.want)
		}
	}
}
