package scaledobject

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/artt-dev/artt/scaler"
)

// Read is what a check of artt-scaler's answers reads of a ScaledObject:
// its name and each trigger's type and metadata, as the API holds them.
func Read(so *unstructured.Unstructured) scaler.ScaledObject {
	out := scaler.ScaledObject{Namespace: so.GetNamespace(), Name: so.GetName()}
	triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers")
	for _, t := range triggers {
		trigger, _ := t.(map[string]any)
		kind, _ := trigger["type"].(string)
		metadata, _ := trigger["metadata"].(map[string]any)
		out.Triggers = append(out.Triggers, scaler.Trigger{Type: kind, Metadata: metadata})
	}
	return out
}
