package controller

import (
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ManagedByLabel marks the objects artt-traffic creates (its own
// DestinationRules and the topology ConfigMap) with FieldManager.
const ManagedByLabel = "app.kubernetes.io/managed-by"

// CacheOptions is the manager's cache configuration artt-traffic needs:
// the DestinationRules it created itself stay out of the cache. It reads
// rules only to find a user's rule for a host, and each of its own writes
// would otherwise come back as a watch event, decoded through Istio's JSON
// unmarshaller: on a fleet, as much CPU as the writes themselves.
func CacheOptions() (cache.Options, error) {
	notOwn, err := labels.NewRequirement(ManagedByLabel, selection.NotEquals, []string{FieldManager})
	if err != nil {
		return cache.Options{}, err
	}
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&networkingv1.DestinationRule{}: {Label: labels.NewSelector().Add(*notOwn)},
	}}, nil
}
