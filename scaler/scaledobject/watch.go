package scaledobject

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// GVR is KEDA's ScaledObject resource.
var GVR = schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}

// Lister is a cached lister of KEDA's ScaledObjects across the cluster,
// and artt-scaler's scaler.Admitter. A call's ScaledObjectRef names its
// namespace itself; answering only for a ScaledObject that exists there
// and sends its external trigger to the same scalerAddress keeps a client
// that reaches the gRPC port from reading another namespace's series by
// claiming it.
type Lister struct {
	indexer cache.Indexer
}

// Watch starts watching every ScaledObject until ctx ends and returns once
// the cache has synced (or fails after timeout). Only each object's
// triggers are kept.
func Watch(ctx context.Context, client dynamic.Interface, timeout time.Duration) (*Lister, error) {
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	informer := factory.ForResource(GVR).Informer()
	if err := informer.SetTransform(keepTriggers); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		return nil, fmt.Errorf("listing %s did not complete within %s: may artt-scaler's ServiceAccount list and watch them?", GVR.GroupResource(), timeout)
	}
	return &Lister{indexer: informer.GetIndexer()}, nil
}

// keepTriggers drops all of a ScaledObject but its name and its triggers,
// so the cache holds little per object.
func keepTriggers(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // a tombstone on deletion
	}
	triggers, _, _ := unstructured.NestedSlice(u.Object, "spec", "triggers")
	kept := &unstructured.Unstructured{Object: map[string]any{}}
	kept.SetGroupVersionKind(u.GroupVersionKind())
	kept.SetNamespace(u.GetNamespace())
	kept.SetName(u.GetName())
	kept.SetResourceVersion(u.GetResourceVersion())
	if err := unstructured.SetNestedSlice(kept.Object, triggers, "spec", "triggers"); err != nil {
		return nil, err
	}
	return kept, nil
}

// Admit returns nil when namespace/name is a ScaledObject with an external
// trigger whose scalerAddress is the call's, and a PermissionDenied status
// naming what is missing otherwise.
func (s *Lister) Admit(namespace, name string, metadata map[string]string) error {
	obj, exists, err := s.indexer.GetByKey(namespace + "/" + name)
	if err != nil {
		return status.Errorf(codes.Unavailable, "ScaledObject %s/%s: %v", namespace, name, err)
	}
	if !exists {
		return status.Errorf(codes.PermissionDenied, "no ScaledObject %s/%s in the cluster: artt-scaler answers only for ScaledObjects that exist", namespace, name)
	}
	address := metadata["scalerAddress"]
	for _, t := range Read(obj.(*unstructured.Unstructured)).Triggers {
		addr, _ := t.Metadata["scalerAddress"].(string)
		if (t.Type == "external" || t.Type == "external-push") && addr == address {
			return nil
		}
	}
	return status.Errorf(codes.PermissionDenied, "ScaledObject %s/%s has no external trigger with scalerAddress %q", namespace, name, address)
}
